/**
 * The {@code kollect} command line (picocli): {@code run} (the operator), {@code demo} (local
 * API servers with the sample catalog, and a local PostgreSQL when it is installed), {@code extract} and {@code test} (offline profile tools).
 * Exit codes: 0 success, 1 failure or mismatch, 2 bad input (unknown flag, invalid value, invalid
 * file), always with a one-line message on standard error.
 */
package io.kollect.operator.cli;
