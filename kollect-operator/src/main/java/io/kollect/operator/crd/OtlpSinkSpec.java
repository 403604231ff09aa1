package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.util.Map;

/**
 * {@code KollectSink.spec.otlp}: records as OpenTelemetry entity events (OTLP log records) to an
 * OTLP receiver (docs/sinks.md, "otlp"). TLS comes from the sink's {@code spec.tls}, the {@code
 * entity.report.interval} from its {@code heartbeatInterval}.
 *
 * @param endpoint {@code http/protobuf}: the full logs URL ({@code .../v1/logs}); {@code grpc}:
 *     scheme, host and port
 * @param protocol {@code http/protobuf} (default) or {@code grpc}
 * @param headerSecretRefs request headers (API keys) by header name, each the key of a Secret in
 *     the sink's namespace
 * @param timeout how long one write waits for the receiver's answer (default 10s)
 * @param resourceAttributes string attributes of the OTLP resource of every request
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OtlpSinkSpec(
    @Required @Pattern(KollectSinkSpec.URL) @JsonPropertyDescription("http/protobuf: the full logs "
        + "URL, e.g. https://otel-collector:4318/v1/logs; grpc: scheme, host and port, e.g. "
        + "https://otel-collector:4317.") String endpoint,
    @Pattern("^(http/protobuf|grpc)$") @JsonPropertyDescription("http/protobuf (default) or grpc.")
        String protocol,
    @JsonPropertyDescription("Request headers by name (e.g. Authorization), each value the key of a "
        + "Secret in this namespace; re-read on use, so a rotated key needs no restart.")
        Map<String, KollectSinkSpec.SecretKeyRef> headerSecretRefs,
    @Pattern(KollectSinkSpec.DURATION) @JsonPropertyDescription("How long one write waits for the "
        + "receiver's answer, e.g. 10s (default 10s, at least 100ms).") String timeout,
    @JsonPropertyDescription("String attributes of the OTLP resource every record is sent under, "
        + "beside service.name=kollect.") Map<String, String> resourceAttributes) {}
