-- Deployed Helm releases by chart and chart version, across the fleet
-- (profile helm-releases: release Secrets decoded; only the deployed revision counts).
SELECT fields ->> 'chart' AS chart, fields ->> 'chartVersion' AS chart_version,
       count(*) AS releases, string_agg(cluster || '/' || namespace || '/' || (fields ->> 'release'),
                                        ', ' ORDER BY cluster, namespace) AS where_deployed
  FROM kollect.objects
 WHERE kind = 'Secret'
   AND fields ->> 'status' = 'deployed'
 GROUP BY 1, 2
 ORDER BY 1, 2;
