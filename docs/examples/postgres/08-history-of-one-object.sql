-- Every recorded state of one object, oldest first.
SELECT sequence, observed_at, op, fields
  FROM kollect.changes
 WHERE cluster = 'prod-eu-1' AND kind = 'ConfigMap' AND namespace = 'payments'
   AND name = 'checkout-config'
 ORDER BY sequence;
