-- Objects deleted in the last 24 hours, with the last fields they had before the delete.
SELECT d.cluster, d.kind, d.namespace, d.name, d.observed_at AS deleted,
       (SELECT u.fields FROM kollect.changes u
         WHERE (u.cluster, u.target, u.api_group, u.kind, u.namespace, u.name)
             = (d.cluster, d.target, d.api_group, d.kind, d.namespace, d.name)
           AND u.op = 'UPSERT' AND u.sequence < d.sequence
         ORDER BY u.sequence DESC LIMIT 1) AS last_fields
  FROM kollect.changes d
 WHERE d.op = 'DELETE'
   AND d.observed_at > now() - interval '24 hours'
 ORDER BY d.observed_at;
