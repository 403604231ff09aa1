package io.kollect.export.otlp;

import java.time.Instant;

/**
 * An OTLP partial success: the receiver accepted the request but dropped some log records. OTLP
 * does not say which, and the protocol forbids retrying the request, so the sink acknowledges the
 * batch and reports this instead ({@link OtlpSink#lastPartialSuccess()}).
 *
 * @param rejectedLogRecords how many log records of the request the receiver dropped (0 when it
 *     only sent a warning)
 * @param errorMessage the receiver's explanation, as it sent it (may be empty)
 * @param at when the sink received it
 */
public record PartialSuccess(long rejectedLogRecords, String errorMessage, Instant at) {}
