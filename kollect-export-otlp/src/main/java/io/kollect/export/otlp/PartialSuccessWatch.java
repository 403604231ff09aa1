package io.kollect.export.otlp;

import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.common.ComponentLoader;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsPartialSuccess;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.export.GrpcResponse;
import io.opentelemetry.sdk.common.export.GrpcSender;
import io.opentelemetry.sdk.common.export.GrpcSenderProvider;
import io.opentelemetry.sdk.common.export.GrpcStatusCode;
import io.opentelemetry.sdk.common.export.HttpResponse;
import io.opentelemetry.sdk.common.export.HttpSender;
import io.opentelemetry.sdk.common.export.HttpSenderProvider;
import io.opentelemetry.sdk.common.export.MessageWriter;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

/**
 * Reads the OTLP partial success out of a successful answer. The opentelemetry-java exporters
 * treat any 2xx / {@code OK} as success and drop the response message, so the sink hands them this
 * {@link ComponentLoader}: it loads the usual sender providers and wraps each sender so that a
 * successful answer is decoded (with the official protobuf definitions) before the exporter
 * completes the export. A partial success therefore reaches the sink before its {@code write}
 * returns. Everything else the exporters load comes from the usual loader unchanged.
 */
final class PartialSuccessWatch implements ComponentLoader {

  private final ComponentLoader delegate =
      ComponentLoader.forClassLoader(PartialSuccessWatch.class.getClassLoader());
  private final Consumer<PartialSuccess> listener;

  PartialSuccessWatch(Consumer<PartialSuccess> listener) {
    this.listener = listener;
  }

  @Override
  @SuppressWarnings("unchecked") // each branch returns a list of exactly the type asked for
  public <T> Iterable<T> load(Class<T> type) {
    if (type == HttpSenderProvider.class) {
      List<HttpSenderProvider> providers = ComponentLoader.loadList(delegate,
          HttpSenderProvider.class);
      return (Iterable<T>) providers.stream()
          .map(p -> (HttpSenderProvider) config -> new WatchedHttpSender(p.createSender(config)))
          .toList();
    }
    if (type == GrpcSenderProvider.class) {
      List<GrpcSenderProvider> providers = ComponentLoader.loadList(delegate,
          GrpcSenderProvider.class);
      return (Iterable<T>) providers.stream()
          .map(p -> (GrpcSenderProvider) config -> new WatchedGrpcSender(p.createSender(config)))
          .toList();
    }
    return delegate.load(type);
  }

  private void inspect(byte[] message) {
    if (message == null || message.length == 0) {
      return;
    }
    try {
      ExportLogsServiceResponse response = ExportLogsServiceResponse.parseFrom(message);
      if (response.hasPartialSuccess()) {
        ExportLogsPartialSuccess partial = response.getPartialSuccess();
        if (partial.getRejectedLogRecords() > 0 || !partial.getErrorMessage().isEmpty()) {
          listener.accept(new PartialSuccess(partial.getRejectedLogRecords(),
              partial.getErrorMessage(), Instant.now()));
        }
      }
    } catch (InvalidProtocolBufferException e) {
      // a receiver that answers 2xx with something else accepted everything as far as OTLP says
    }
  }

  private final class WatchedHttpSender implements HttpSender {
    private final HttpSender sender;

    WatchedHttpSender(HttpSender sender) {
      this.sender = sender;
    }

    @Override
    public void send(MessageWriter writer, Consumer<HttpResponse> onResponse,
        Consumer<Throwable> onError) {
      sender.send(writer, response -> {
        if (response.getStatusCode() >= 200 && response.getStatusCode() < 300) {
          inspect(response.getResponseBody());
        }
        onResponse.accept(response);
      }, onError);
    }

    @Override
    public CompletableResultCode shutdown() {
      return sender.shutdown();
    }
  }

  private final class WatchedGrpcSender implements GrpcSender {
    private final GrpcSender sender;

    WatchedGrpcSender(GrpcSender sender) {
      this.sender = sender;
    }

    @Override
    public void send(MessageWriter writer, Consumer<GrpcResponse> onResponse,
        Consumer<Throwable> onError) {
      sender.send(writer, response -> {
        if (response.getStatusCode() == GrpcStatusCode.OK) {
          inspect(response.getResponseMessage());
        }
        onResponse.accept(response);
      }, onError);
    }

    @Override
    public CompletableResultCode shutdown() {
      return sender.shutdown();
    }
  }
}
