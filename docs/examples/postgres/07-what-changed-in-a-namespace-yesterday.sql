-- What changed in namespace payments yesterday (history on: one row per change of an object's
-- op or content, in the order it happened).
SELECT observed_at, op, cluster, kind, name, fields
  FROM kollect.changes
 WHERE namespace = 'payments'
   AND observed_at >= date_trunc('day', now()) - interval '1 day'
   AND observed_at < date_trunc('day', now())
 ORDER BY observed_at, cluster, kind, name;
