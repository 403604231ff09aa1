package io.kollect.export;

import com.fasterxml.jackson.core.type.TypeReference;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.kollect.extract.Record;
import io.kollect.testing.TestCertificateAuthority;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * A real HTTPS receiver on loopback ({@code com.sun.net.httpserver.HttpsServer}) presenting a
 * given server certificate and, when given a client CA, requiring a client certificate issued by
 * it. It records, per request, the records received, the client certificate's subject and the TLS
 * session, so tests can see which client identity arrived and whether a connection was reused.
 */
final class HttpsReceiver implements AutoCloseable {

  /** One request as received. */
  record Received(int records, String clientSubject, String sessionId) {}

  private final HttpsServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "https-receiver");
    t.setDaemon(true);
    return t;
  });
  final List<Received> received = new CopyOnWriteArrayList<>();
  private volatile int status = 200;

  private HttpsReceiver(SSLContext context, boolean requireClientCertificate) throws IOException {
    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.setHttpsConfigurator(new HttpsConfigurator(context) {
      @Override
      public void configure(HttpsParameters params) {
        SSLParameters p = context.getDefaultSSLParameters();
        p.setNeedClientAuth(requireClientCertificate);
        params.setSSLParameters(p);
      }
    });
    server.createContext("/records", ex -> {
      List<Record> batch;
      try (InputStream in = ex.getRequestBody()) {
        batch = RecordJson.MAPPER.readValue(in, new TypeReference<List<Record>>() {});
      }
      SSLSession session = ((HttpsExchange) ex).getSSLSession();
      received.add(new Received(batch.size(), clientSubject(session),
          HexFormat.of().formatHex(session.getId())));
      try (ex) {
        ex.sendResponseHeaders(status, -1);
      }
    });
    server.setExecutor(executor);
    server.start();
  }

  /** Presents {@code certificate}; requires a client certificate from {@code clientCa} if set. */
  static HttpsReceiver start(TestCertificateAuthority.Issued certificate,
      TestCertificateAuthority clientCa) throws Exception {
    return new HttpsReceiver(certificate.serverContext(clientCa), clientCa != null);
  }

  /** The status every later request is answered with. */
  void answer(int status) {
    this.status = status;
  }

  int port() {
    return server.getAddress().getPort();
  }

  /** {@code https://<host>:<port>/records}. */
  URI uri(String host) {
    return URI.create("https://" + host + ":" + port() + "/records");
  }

  private static String clientSubject(SSLSession session) {
    try {
      Certificate[] chain = session.getPeerCertificates();
      return ((X509Certificate) chain[0]).getSubjectX500Principal().getName();
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
