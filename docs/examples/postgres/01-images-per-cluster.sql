-- Which images run in which cluster, and in how many Deployments
-- (profile deployment-inventory: field images, a list of image references).
SELECT o.cluster, image, count(*) AS deployments
  FROM kollect.objects o, jsonb_array_elements_text(o.fields -> 'images') AS image
 WHERE o.kind = 'Deployment'
 GROUP BY o.cluster, image
 ORDER BY o.cluster, image;
