/**
 * Test support for Kollect's integration tests: {@link io.kollect.testing.TestApiServer} starts a
 * real kube-apiserver and etcd through {@code io.fabric8:kube-api-test} and hands out clients, or
 * reuses one that an earlier test class of the JVM handed back once it is provably back to what its
 * set-up created;
 * {@link io.kollect.testing.SequencedRecordReceiver} is a loopback HTTP receiver that applies
 * records by their {@code sequence}, as the record format tells receivers to (per cluster, target
 * and key); {@link io.kollect.testing.FreezableTcpProxy} stands between a client and an API server
 * and can blackhole the path (freeze, thaw) or take the server away and back (stop, restart);
 * {@link io.kollect.testing.TestCertificateAuthority} issues the certificates of the TLS tests.
 * Modules use it in test scope only.
 */
package io.kollect.testing;
