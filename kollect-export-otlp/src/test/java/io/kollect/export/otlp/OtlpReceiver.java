package io.kollect.export.otlp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.TlsServerCredentials;
import io.grpc.stub.StreamObserver;
import io.kollect.testing.TestCertificateAuthority;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsPartialSuccess;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.logs.v1.LogsServiceGrpc;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * A real OTLP logs receiver on loopback, built from the official protobuf definitions: OTLP/HTTP
 * on the JDK's HTTP(S) server (decoding {@code ExportLogsServiceRequest} from {@code /v1/logs})
 * or OTLP/gRPC on grpc-java with the generated {@code LogsService}. It keeps every request it
 * accepted with its headers, and answers as scripted ({@link #answerNext}): success by default.
 * Public for kollect-operator's tests (from this module's test-jar).
 */
public final class OtlpReceiver implements AutoCloseable {

  /** What the receiver answers to one request. */
  public sealed interface Answer {}

  /** Accepts the request. */
  public record Accept() implements Answer {}

  /** Accepts the request but reports {@code rejected} log records dropped. */
  public record Partial(long rejected, String message) implements Answer {}

  /** Refuses the request as unavailable (HTTP 503, gRPC UNAVAILABLE): nothing is kept. */
  public record Unavailable() implements Answer {}

  /** One accepted request and its headers (names lower-cased). */
  public record Received(ExportLogsServiceRequest request, Map<String, String> headers) {}

  private final boolean grpc;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final ConcurrentLinkedQueue<Answer> script = new ConcurrentLinkedQueue<>();
  private final AtomicInteger refused = new AtomicInteger();
  private HttpServer http;
  private Server grpcServer;
  private int port;
  private boolean tls;

  private OtlpReceiver(boolean grpc) {
    this.grpc = grpc;
  }

  /** A plaintext receiver of {@code protocol}. */
  public static OtlpReceiver start(OtlpSinkConfig.Protocol protocol) throws Exception {
    return start(protocol, null, null);
  }

  /**
   * A receiver of {@code protocol}; with {@code server} it speaks TLS presenting that certificate,
   * and with {@code clientCa} it requires a client certificate signed by it.
   */
  public static OtlpReceiver start(OtlpSinkConfig.Protocol protocol,
      TestCertificateAuthority.Issued server, TestCertificateAuthority clientCa) throws Exception {
    OtlpReceiver r = new OtlpReceiver(protocol == OtlpSinkConfig.Protocol.GRPC);
    r.tls = server != null;
    if (r.grpc) {
      r.startGrpc(server, clientCa);
    } else {
      r.startHttp(server, clientCa);
    }
    return r;
  }

  private void startHttp(TestCertificateAuthority.Issued server, TestCertificateAuthority clientCa)
      throws Exception {
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    if (server == null) {
      http = HttpServer.create(address, 0);
    } else {
      HttpsServer https = HttpsServer.create(address, 0);
      SSLContext context = server.serverContext(clientCa);
      https.setHttpsConfigurator(new HttpsConfigurator(context) {
        @Override
        public void configure(HttpsParameters params) {
          // HttpsParameters.setNeedClientAuth alone is not applied: set it in the SSL parameters
          SSLParameters ssl = getSSLContext().getDefaultSSLParameters();
          ssl.setNeedClientAuth(clientCa != null);
          params.setSSLParameters(ssl);
        }
      });
      http = https;
    }
    http.createContext("/v1/logs", this::handleHttp);
    http.start();
    port = http.getAddress().getPort();
  }

  private void handleHttp(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      Answer answer = nextAnswer();
      if (answer instanceof Unavailable) {
        exchange.sendResponseHeaders(503, -1);
        return;
      }
      if (!"application/x-protobuf".equals(exchange.getRequestHeaders().getFirst(
          "Content-Type"))) {
        exchange.sendResponseHeaders(415, -1);
        return;
      }
      Map<String, String> headers = new java.util.TreeMap<>();
      exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v.get(0)));
      received.add(new Received(ExportLogsServiceRequest.parseFrom(body), headers));
      byte[] response = response(answer).toByteArray();
      exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
      exchange.sendResponseHeaders(200, response.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(response);
      }
    }
  }

  private void startGrpc(TestCertificateAuthority.Issued server, TestCertificateAuthority clientCa)
      throws Exception {
    ServerCredentials credentials = InsecureServerCredentials.create();
    if (server != null) {
      TlsServerCredentials.Builder tls = TlsServerCredentials.newBuilder().keyManager(
          new ByteArrayInputStream(server.certificatePem().getBytes(StandardCharsets.US_ASCII)),
          new ByteArrayInputStream(server.pkcs8KeyPem().getBytes(StandardCharsets.US_ASCII)));
      if (clientCa != null) {
        tls.trustManager(new ByteArrayInputStream(clientCa.certificatePem().getBytes(
            StandardCharsets.US_ASCII))).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
      }
      credentials = tls.build();
    }
    Metadata.Key<String> auth = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    Context.Key<Map<String, String>> callHeaders = Context.key("headers");
    ServerInterceptor headersOfCall = new ServerInterceptor() {
      @Override
      public <Q, P> ServerCall.Listener<Q> interceptCall(ServerCall<Q, P> call,
          Metadata metadata, ServerCallHandler<Q, P> next) {
        String value = metadata.get(auth);
        Context context = Context.current().withValue(callHeaders,
            value == null ? Map.of() : Map.of("authorization", value));
        return Contexts.interceptCall(context, call, metadata, next);
      }
    };
    LogsServiceGrpc.LogsServiceImplBase service = new LogsServiceGrpc.LogsServiceImplBase() {
      @Override
      public void export(ExportLogsServiceRequest request,
          StreamObserver<ExportLogsServiceResponse> responses) {
        Answer answer = nextAnswer();
        if (answer instanceof Unavailable) {
          responses.onError(Status.UNAVAILABLE.withDescription("scripted outage")
              .asRuntimeException());
          return;
        }
        received.add(new Received(request, callHeaders.get()));
        responses.onNext(response(answer));
        responses.onCompleted();
      }
    };
    grpcServer = Grpc.newServerBuilderForPort(0, credentials)
        .addService(ServerInterceptors.intercept(service, headersOfCall))
        .build().start();
    port = grpcServer.getPort();
  }

  private Answer nextAnswer() {
    Answer a = script.poll();
    if (a instanceof Unavailable) {
      refused.incrementAndGet();
    }
    return a == null ? new Accept() : a;
  }

  /** How many requests were refused as unavailable. */
  public int refused() {
    return refused.get();
  }

  private static ExportLogsServiceResponse response(Answer answer) {
    if (answer instanceof Partial p) {
      return ExportLogsServiceResponse.newBuilder().setPartialSuccess(
          ExportLogsPartialSuccess.newBuilder().setRejectedLogRecords(p.rejected())
              .setErrorMessage(p.message())).build();
    }
    return ExportLogsServiceResponse.getDefaultInstance();
  }

  /** Answers the next request(s) so, in order; success afterwards. */
  public void answerNext(Answer... answers) {
    script.addAll(List.of(answers));
  }

  /** The endpoint as the sink's config takes it for this receiver's protocol. */
  public String endpoint() {
    String scheme = tls ? "https" : "http";
    return scheme + "://localhost:" + port + (grpc ? "" : "/v1/logs");
  }

  /** Every accepted request, in arrival order. */
  public List<Received> received() {
    return new ArrayList<>(received);
  }

  @Override
  public void close() throws InterruptedException {
    if (http != null) {
      http.stop(0);
    }
    if (grpcServer != null) {
      grpcServer.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
