/**
 * JMH benchmarks of export throughput through the public API only (records per second through
 * the diff and delivery), run under the {@code bench} profile and never by {@code verify}; their
 * figures are in {@code docs/benchmarks.md}.
 */
package io.kollect.export.bench;
