-- Which clusters and Deployments still run a given image
-- (a containment test on fields: answered from the GIN index on fields).
SELECT cluster, namespace, name
  FROM kollect.objects
 WHERE kind = 'Deployment'
   AND fields @> '{"images": ["envoyproxy/envoy:v1.31.2"]}'
 ORDER BY cluster, namespace, name;
