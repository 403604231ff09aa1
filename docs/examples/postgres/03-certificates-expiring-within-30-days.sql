-- TLS certificates that expire within 30 days, or have expired, from the Secret metadata
-- inventory (field expires: the notAfter of tls.crt, never the certificate itself).
SELECT cluster, namespace, name, (fields ->> 'expires')::timestamptz AS expires
  FROM kollect.objects
 WHERE kind = 'Secret'
   AND fields ? 'expires'
   AND (fields ->> 'expires')::timestamptz < now() + interval '30 days'
 ORDER BY expires;
