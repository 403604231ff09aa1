-- How many objects of each kind every namespace holds, per cluster.
SELECT cluster, namespace, kind, count(*) AS objects
  FROM kollect.objects
 WHERE namespace <> ''
 GROUP BY cluster, namespace, kind
 ORDER BY cluster, namespace, kind;
