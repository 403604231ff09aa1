/**
 * The operator's HTTP listeners ({@link io.kollect.operator.http.OperatorHttp}): {@code /healthz}
 * and {@code /readyz} on the probe address, {@code /metrics}, the bearer-protected {@code
 * /inventory} ({@link io.kollect.operator.http.InventoryAuth}) and {@code /experiments} on the
 * metrics address; listen addresses in the controller-tooling notation ({@link
 * io.kollect.operator.http.BindAddress}).
 */
package io.kollect.operator.http;
