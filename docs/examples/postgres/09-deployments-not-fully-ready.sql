-- Deployments with fewer ready replicas than desired, worst first.
SELECT cluster, namespace, name, (fields ->> 'readyReplicas')::int AS ready,
       (fields ->> 'replicas')::int AS desired
  FROM kollect.objects
 WHERE kind = 'Deployment'
   AND coalesce((fields ->> 'readyReplicas')::int, 0) < (fields ->> 'replicas')::int
 ORDER BY (fields ->> 'replicas')::int - coalesce((fields ->> 'readyReplicas')::int, 0) DESC,
          cluster, namespace, name;
