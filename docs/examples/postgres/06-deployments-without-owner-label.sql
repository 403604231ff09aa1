-- Deployments that carry no owner label (here: team), so nobody gets paged for them.
SELECT cluster, namespace, name
  FROM kollect.objects
 WHERE kind = 'Deployment'
   AND NOT labels ? 'team'
 ORDER BY cluster, namespace, name;
