/**
 * Test support for Kollect's integration tests: {@link io.kollect.testing.TestApiServer} starts a
 * real kube-apiserver and etcd through {@code io.fabric8:kube-api-test} and hands out clients.
 * Modules use it in test scope only.
 */
package io.kollect.testing;
