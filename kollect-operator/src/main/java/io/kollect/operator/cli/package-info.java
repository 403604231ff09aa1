/**
 * The {@code kollect} command line (picocli): {@code run} (the operator), {@code demo} (a local
 * API server with the sample catalog), {@code extract} and {@code test} (offline profile tools).
 * Exit codes: 0 success, 1 failure or mismatch, 2 bad input (unknown flag, invalid value, invalid
 * file), always with a one-line message on standard error.
 */
package io.kollect.operator.cli;
