package io.kollect.export;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.NoSuchAlgorithmException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509KeyManager;

/**
 * How a sink that speaks TLS verifies its server and proves its own identity.
 *
 * <p>Every part is a supplier of PEM text, asked again before each request, so a host can resolve
 * it from a Kubernetes Secret and a rotated CA or client certificate takes effect without a
 * restart; the sink compares the strings and rebuilds its TLS context only when they changed. A
 * supplier may be {@code null} (the part is not used); a non-null supplier that returns nothing or
 * throws makes the request fail with an error naming the part.
 *
 * <p>Verification is on unless {@code insecureSkipVerify}: the server's certificate chain must
 * lead to {@code caPem} (or, without it, to the JDK's default trust store), be within its validity
 * period, and name the URL's host in its subject alternative names. Hostname verification does not
 * depend on the JDK's global {@code jdk.internal.httpclient.disableHostnameVerification} property.
 *
 * @param caPem supplies the CA certificate(s) (PEM, one or more {@code CERTIFICATE} blocks) the
 *     server's chain must lead to, or {@code null} for the JDK's default trust store
 * @param clientCertPem supplies the client certificate (PEM, leaf first, optionally followed by
 *     intermediates) for mutual TLS, or {@code null}; set together with {@code clientKeyPem}
 * @param clientKeyPem supplies the client certificate's private key, unencrypted PEM: PKCS#8
 *     ({@code PRIVATE KEY}), PKCS#1 ({@code RSA PRIVATE KEY}) or SEC 1 ({@code EC PRIVATE KEY}), or
 *     {@code null}; set together with {@code clientCertPem}
 * @param insecureSkipVerify <strong>unsafe</strong>: accept any server certificate, for any host.
 *     Anyone on the network path can then read and alter what is sent. For tests only.
 */
public record TlsConfig(
    Supplier<String> caPem,
    Supplier<String> clientCertPem,
    Supplier<String> clientKeyPem,
    boolean insecureSkipVerify) {

  public TlsConfig {
    if ((clientCertPem == null) != (clientKeyPem == null)) {
      throw new IllegalArgumentException("clientCertPem, clientKeyPem: set both or neither (a "
          + (clientCertPem == null ? "key without a certificate" : "certificate without a key")
          + " cannot authenticate)");
    }
  }

  /** Verifies the server against the JDK's default trust store, no client certificate. */
  public static TlsConfig defaults() {
    return new TlsConfig(null, null, null, false);
  }

  /** Verifies the server against the CA certificate(s) {@code caPem} supplies. */
  public static TlsConfig trusting(Supplier<String> caPem) {
    return new TlsConfig(caPem, null, null, false);
  }

  /** The same, plus a client certificate and key for mutual TLS. */
  public TlsConfig withClientCertificate(Supplier<String> certPem, Supplier<String> keyPem) {
    return new TlsConfig(caPem, certPem, keyPem, insecureSkipVerify);
  }

  /** The same, with server verification switched off or on (see {@code insecureSkipVerify}). */
  public TlsConfig withInsecureSkipVerify(boolean insecure) {
    return new TlsConfig(caPem, clientCertPem, clientKeyPem, insecure);
  }

  @Override
  public String toString() {
    return "TlsConfig[ca=" + (caPem != null ? "custom" : "default")
        + ", clientCertificate=" + (clientCertPem != null) + ", insecureSkipVerify="
        + insecureSkipVerify + "]";
  }

  // ---------------------------------------------------------------------------------------------
  // Below: turning the supplied PEM text into an SSLContext (package-private). The sink keeps the
  // last Material it built a context from and rebuilds only when the strings differ.

  /** What the suppliers returned at one moment; compared by value to notice a rotation. */
  record Material(String caPem, String clientCertPem, String clientKeyPem, boolean insecure) {
    @Override
    public String toString() {
      return "Material[redacted]"; // holds a private key
    }
  }

  /** A part of the TLS configuration that is missing, unreadable or not valid PEM. */
  static final class InvalidMaterial extends Exception {
    InvalidMaterial(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * A server certificate this sink does not accept, with a message naming the endpoint and why
   * (not trusted, expired, another host). Thrown from the trust manager inside the handshake; the
   * sink finds it in the cause chain of the client's {@code SSLHandshakeException}.
   */
  static final class ServerCertificateRejected extends CertificateException {
    ServerCertificateRejected(String message, Throwable cause) {
      super(message, cause);
    }
  }

  static final String CA = "CA certificate (tls.caPem)";
  static final String CLIENT_CERT = "client certificate (tls.clientCertPem)";
  static final String CLIENT_KEY = "client key (tls.clientKeyPem)";

  /** Asks every supplier once. */
  Material read() throws InvalidMaterial {
    return new Material(ask(caPem, CA), ask(clientCertPem, CLIENT_CERT),
        ask(clientKeyPem, CLIENT_KEY), insecureSkipVerify);
  }

  private static String ask(Supplier<String> supplier, String what) throws InvalidMaterial {
    if (supplier == null) {
      return null;
    }
    String value;
    try {
      value = supplier.get();
    } catch (RuntimeException e) {
      // the exception's message could quote the secret's source; keep only its type
      throw new InvalidMaterial("cannot read the " + what + " ("
          + e.getClass().getSimpleName() + ")", null);
    }
    if (value == null || value.isBlank()) {
      throw new InvalidMaterial("the " + what + " is missing (empty)", null);
    }
    return value;
  }

  /** An SSL context and the key manager that saw what client certificate the server asked for. */
  record Context(SSLContext ssl, ClientIdentity identity) {}

  /**
   * An SSL context for talking to {@code endpoint} ({@code https://host:port}, used in error
   * messages) with {@code m}.
   */
  static Context sslContext(Material m, String endpoint) throws InvalidMaterial {
    try {
      TrustManager trust;
      if (m.insecure()) {
        trust = new AnyServer();
      } else {
        KeyStore anchors = null;
        if (m.caPem() != null) {
          anchors = emptyKeyStore();
          int i = 0;
          for (X509Certificate ca : Pem.certificates(m.caPem(), CA)) {
            anchors.setCertificateEntry("ca-" + i++, ca);
          }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(anchors);
        trust = new VerifiedServer(x509(tmf.getTrustManagers()), endpoint,
            m.caPem() != null ? "the configured CA" : "the JDK's default trust store");
      }
      X509KeyManager keys = null;
      X509Certificate leaf = null;
      if (m.clientCertPem() != null) {
        List<X509Certificate> chain = Pem.certificates(m.clientCertPem(), CLIENT_CERT);
        PrivateKey key = Pem.privateKey(m.clientKeyPem(), CLIENT_KEY);
        leaf = chain.get(0);
        Pem.checkPair(leaf, key);
        KeyStore store = emptyKeyStore();
        char[] password = new char[0];
        store.setKeyEntry("client", key, password, chain.toArray(new X509Certificate[0]));
        KeyManagerFactory kmf =
            KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, password);
        for (KeyManager km : kmf.getKeyManagers()) {
          if (km instanceof X509KeyManager x) {
            keys = x;
          }
        }
      }
      ClientIdentity identity = new ClientIdentity(keys, leaf);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(new KeyManager[] {identity}, new TrustManager[] {trust}, null);
      return new Context(context, identity);
    } catch (GeneralSecurityException | IOException e) {
      throw new InvalidMaterial("cannot set up TLS: " + e, e);
    }
  }

  private static KeyStore emptyKeyStore() throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    return store;
  }

  private static X509ExtendedTrustManager x509(TrustManager[] managers) {
    for (TrustManager m : managers) {
      if (m instanceof X509ExtendedTrustManager x) {
        return x;
      }
    }
    throw new IllegalStateException("the JDK's PKIX TrustManagerFactory made no X509 manager");
  }

  /**
   * Verifies the server's chain with the JDK's PKIX trust manager, in steps, so a rejection says
   * which check failed: validity period first, then the chain to the trust anchors, then the
   * host name (the engine's endpoint identification, which the sink sets on its client's
   * SSLParameters, so it holds even when the JDK's global switch turns it off).
   */
  static final class VerifiedServer extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager pkix;
    private final String endpoint;
    private final String anchors;

    VerifiedServer(X509ExtendedTrustManager pkix, String endpoint, String anchors) {
      this.pkix = pkix;
      this.endpoint = endpoint;
      this.anchors = anchors;
    }

    private interface IdentityCheck {
      void run() throws CertificateException;
    }

    private void verify(X509Certificate[] chain, String authType, String host,
        IdentityCheck withIdentity) throws CertificateException {
      if (chain == null || chain.length == 0) {
        throw new ServerCertificateRejected("server at " + endpoint + " sent no certificate", null);
      }
      Date now = new Date();
      for (X509Certificate c : chain) {
        String which = c == chain[0] ? "server certificate for " + endpoint
            : "certificate " + c.getSubjectX500Principal() + " in the chain of " + endpoint;
        try {
          c.checkValidity(now);
        } catch (CertificateExpiredException e) {
          throw new ServerCertificateRejected(which + " expired at "
              + c.getNotAfter().toInstant() + " (" + Pem.describe(c) + ")", e);
        } catch (CertificateNotYetValidException e) {
          throw new ServerCertificateRejected(which + " is not valid before "
              + c.getNotBefore().toInstant() + " (" + Pem.describe(c) + ")", e);
        }
      }
      try {
        pkix.checkServerTrusted(chain, authType);
      } catch (CertificateException e) {
        throw new ServerCertificateRejected("server certificate for " + endpoint
            + " is not trusted by " + anchors + " (" + Pem.describe(chain[0]) + ")", e);
      }
      try {
        withIdentity.run();
      } catch (CertificateException e) {
        throw new ServerCertificateRejected("server certificate for " + endpoint
            + " does not match the host " + host + " (" + Pem.describe(chain[0]) + "): "
            + e.getMessage(), e);
      }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      verify(chain, authType, engine == null ? "?" : engine.getPeerHost(),
          () -> pkix.checkServerTrusted(chain, authType, engine));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      verify(chain, authType, String.valueOf(socket == null ? "?" : socket.getInetAddress()),
          () -> pkix.checkServerTrusted(chain, authType, socket));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      verify(chain, authType, "?", () -> { });
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      pkix.checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      pkix.checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      pkix.checkClientTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return pkix.getAcceptedIssuers();
    }
  }

  /**
   * Presents the configured client certificate (if any) and notes whether and for which issuers
   * the server asked for one. Under TLS 1.3 a server that refuses a client certificate just closes
   * the connection after the handshake, so this note is the only way to tell the user why.
   */
  static final class ClientIdentity extends X509ExtendedKeyManager {
    private final X509KeyManager keys;
    private final X509Certificate configured;
    private volatile String request;

    ClientIdentity(X509KeyManager keys, X509Certificate configured) {
      this.keys = keys;
      this.configured = configured;
    }

    /** Forgets the last certificate request (call before a request). */
    void reset() {
      request = null;
    }

    /** What the server asked for since {@link #reset()} and what was sent, or {@code null}. */
    String lastRequest() {
      return request;
    }

    private String note(Principal[] issuers, String alias) {
      String wanted = issuers == null || issuers.length == 0 ? ""
          : " issued by " + Arrays.stream(issuers).map(Principal::getName).toList();
      if (configured == null) {
        request = "the server asked for a client certificate" + wanted + " and none is "
            + "configured (set the tls client certificate and key)";
      } else if (alias == null) {
        request = "the server asked for a client certificate" + wanted + "; the configured one ("
            + Pem.describe(configured) + ") does not fit, so none was sent";
      } else {
        // sent, and the connection failed afterwards: most likely the server refused it, though
        // a server that fails for another reason right after the handshake looks the same
        request = "the server asked for a client certificate" + wanted + " and the connection "
            + "failed after the configured one was sent; the server probably refused it ("
            + Pem.describe(configured) + ")";
      }
      return alias;
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine e) {
      return note(issuers, keys instanceof X509ExtendedKeyManager x
          ? x.chooseEngineClientAlias(keyType, issuers, e)
          : keys == null ? null : keys.chooseClientAlias(keyType, issuers, null));
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return note(issuers, keys == null ? null : keys.chooseClientAlias(keyType, issuers, socket));
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return keys == null ? null : keys.getClientAliases(keyType, issuers);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return keys == null ? null : keys.getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return keys == null ? null : keys.getPrivateKey(alias);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return null;
    }
  }

  /**
   * {@code insecureSkipVerify}: accepts every server. Being an X509<em>Extended</em>TrustManager
   * keeps the JDK from adding its own host name check around it.
   */
  static final class AnyServer extends X509ExtendedTrustManager {
    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      throw new CertificateException("a sink does not accept TLS clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      throw new CertificateException("a sink does not accept TLS clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      throw new CertificateException("a sink does not accept TLS clients");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }

  /**
   * PEM certificates and unencrypted private keys with the JDK alone. PKCS#1 ({@code RSA PRIVATE
   * KEY}) and SEC 1 ({@code EC PRIVATE KEY}) keys, what {@code openssl} and cert-manager often
   * write into {@code kubernetes.io/tls} Secrets, are wrapped into the PKCS#8 structure the JDK's
   * key factories read; that takes a few bytes of DER, written and read here.
   */
  static final class Pem {
    private static final Pattern BLOCK = Pattern.compile(
        "-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END ([A-Z0-9 ]+)-----", Pattern.DOTALL);
    /** DER of OID 1.2.840.113549.1.1.1 (rsaEncryption). */
    private static final byte[] RSA_OID = {0x2A, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xF7, 0x0D,
        0x01, 0x01, 0x01};
    /** DER of OID 1.2.840.10045.2.1 (id-ecPublicKey). */
    private static final byte[] EC_OID = {0x2A, (byte) 0x86, 0x48, (byte) 0xCE, 0x3D, 0x02, 0x01};

    private Pem() {}

    private record Block(String label, byte[] der) {}

    private static List<Block> blocks(String pem, String what) throws InvalidMaterial {
      List<Block> blocks = new ArrayList<>();
      Matcher m = BLOCK.matcher(pem);
      while (m.find()) {
        String label = m.group(1);
        if (!label.equals(m.group(3))) {
          throw new InvalidMaterial("the " + what + " is not valid PEM: BEGIN " + label
              + " ends with END " + m.group(3), null);
        }
        String body = m.group(2);
        if (body.contains("Proc-Type:") || body.contains("DEK-Info:")) {
          throw new InvalidMaterial("the " + what + " is encrypted (" + label + " with "
              + "Proc-Type); give it unencrypted", null);
        }
        try {
          blocks.add(new Block(label, Base64.getDecoder().decode(body.replaceAll("\\s+", ""))));
        } catch (IllegalArgumentException e) {
          throw new InvalidMaterial("the " + what + " is not valid PEM: the " + label
              + " block is not valid base64", null);
        }
      }
      return blocks;
    }

    static List<X509Certificate> certificates(String pem, String what) throws InvalidMaterial {
      List<X509Certificate> certs = new ArrayList<>();
      CertificateFactory factory;
      try {
        factory = CertificateFactory.getInstance("X.509");
      } catch (CertificateException e) {
        throw new IllegalStateException("the JDK has no X.509 certificate factory", e);
      }
      for (Block b : blocks(pem, what)) {
        if (!b.label().equals("CERTIFICATE")) {
          continue;
        }
        try {
          Collection<? extends Certificate> one =
              factory.generateCertificates(new ByteArrayInputStream(b.der()));
          for (Certificate c : one) {
            certs.add((X509Certificate) c);
          }
        } catch (CertificateException e) {
          throw new InvalidMaterial("the " + what + " is not valid PEM: certificate "
              + (certs.size() + 1) + " cannot be parsed (" + e.getMessage() + ")", null);
        }
      }
      if (certs.isEmpty()) {
        throw new InvalidMaterial("the " + what + " holds no PEM certificate (no "
            + "-----BEGIN CERTIFICATE----- block)", null);
      }
      return certs;
    }

    static PrivateKey privateKey(String pem, String what) throws InvalidMaterial {
      for (Block b : blocks(pem, what)) {
        switch (b.label()) {
          case "PRIVATE KEY":
            return pkcs8(b.der(), what, "PRIVATE KEY (PKCS#8)");
          case "RSA PRIVATE KEY":
            return pkcs8(der(0x30, der(0x02, new byte[] {0}),
                der(0x30, der(0x06, RSA_OID), new byte[] {0x05, 0x00}), der(0x04, b.der())),
                what, "RSA PRIVATE KEY (PKCS#1)");
          case "EC PRIVATE KEY":
            return pkcs8(der(0x30, der(0x02, new byte[] {0}),
                der(0x30, der(0x06, EC_OID), curveOf(b.der(), what)), der(0x04, b.der())),
                what, "EC PRIVATE KEY (SEC 1)");
          case "ENCRYPTED PRIVATE KEY":
            throw new InvalidMaterial("the " + what + " is encrypted (ENCRYPTED PRIVATE KEY); "
                + "give it unencrypted", null);
          default:
            // other blocks (EC PARAMETERS, a certificate next to the key) are skipped
        }
      }
      throw new InvalidMaterial("the " + what + " holds no PEM private key (expected a "
          + "PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block)", null);
    }

    private static PrivateKey pkcs8(byte[] der, String what, String kind) throws InvalidMaterial {
      for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS")) {
        try {
          return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (InvalidKeySpecException | NoSuchAlgorithmException
            | RuntimeException e) {
          // not this algorithm; try the next
        }
      }
      throw new InvalidMaterial("the " + what + " is not valid PEM: its " + kind
          + " block cannot be parsed as an RSA, EC or EdDSA key", null);
    }

    /** The named-curve OID (as a whole DER element) from a SEC 1 ECPrivateKey's parameters. */
    private static byte[] curveOf(byte[] sec1, String what) throws InvalidMaterial {
      try {
        int[] outer = tlv(sec1, 0);
        if (outer[0] != 0x30) {
          throw new IndexOutOfBoundsException();
        }
        for (int at = outer[1]; at < outer[2]; ) {
          int[] e = tlv(sec1, at);
          if (e[0] == 0xA0) {
            int[] oid = tlv(sec1, e[1]);
            if (oid[0] == 0x06) {
              return Arrays.copyOfRange(sec1, e[1], oid[2]);
            }
          }
          at = e[2];
        }
      } catch (IndexOutOfBoundsException e) {
        throw new InvalidMaterial("the " + what + " is not valid PEM: its EC PRIVATE KEY block "
            + "is not a SEC 1 structure", null);
      }
      throw new InvalidMaterial("the " + what + " is an EC PRIVATE KEY without its curve; "
          + "give it as PKCS#8 (openssl pkcs8 -topk8 -nocrypt)", null);
    }

    /** {tag, start of content, end of content} of the DER element at {@code at}. */
    private static int[] tlv(byte[] b, int at) {
      int tag = b[at] & 0xFF;
      int len = b[at + 1] & 0xFF;
      int start = at + 2;
      if (len > 0x80) {
        int n = len & 0x7F;
        if (n > 3) {
          throw new IndexOutOfBoundsException("DER length");
        }
        len = 0;
        for (int i = 0; i < n; i++) {
          len = (len << 8) | (b[start++] & 0xFF);
        }
      } else if (len == 0x80) {
        throw new IndexOutOfBoundsException("indefinite DER length");
      }
      if (start + len > b.length) {
        throw new IndexOutOfBoundsException("DER length");
      }
      return new int[] {tag, start, start + len};
    }

    private static byte[] der(int tag, byte[]... parts) {
      ByteArrayOutputStream content = new ByteArrayOutputStream();
      for (byte[] p : parts) {
        content.writeBytes(p);
      }
      int len = content.size();
      ByteArrayOutputStream out = new ByteArrayOutputStream(len + 6);
      out.write(tag);
      if (len < 0x80) {
        out.write(len);
      } else if (len < 0x100) {
        out.write(0x81);
        out.write(len);
      } else if (len < 0x10000) {
        out.write(0x82);
        out.write(len >> 8);
        out.write(len);
      } else {
        out.write(0x83);
        out.write(len >> 16);
        out.write(len >> 8);
        out.write(len);
      }
      out.writeBytes(content.toByteArray());
      return out.toByteArray();
    }

    /** Fails unless {@code key} is the private half of {@code cert}'s public key. */
    static void checkPair(X509Certificate cert, PrivateKey key) throws InvalidMaterial {
      PublicKey pub = cert.getPublicKey();
      String algorithm = switch (key.getAlgorithm()) {
        case "RSA" -> "SHA256withRSA";
        case "EC" -> "SHA256withECDSA";
        case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
        default -> null; // nothing cheap to compare; the handshake will tell
      };
      boolean match;
      if (!Objects.equals(pub.getAlgorithm(), key.getAlgorithm())
          && !(key.getAlgorithm().startsWith("Ed") && pub.getAlgorithm().startsWith("Ed"))) {
        match = false;
      } else if (algorithm == null) {
        return;
      } else {
        try {
          byte[] probe = "kollect".getBytes(StandardCharsets.US_ASCII);
          Signature sign = Signature.getInstance(algorithm);
          sign.initSign(key);
          sign.update(probe);
          byte[] signature = sign.sign();
          Signature verify = Signature.getInstance(algorithm);
          verify.initVerify(pub);
          verify.update(probe);
          match = verify.verify(signature);
        } catch (GeneralSecurityException e) {
          match = false;
        }
      }
      if (!match) {
        throw new InvalidMaterial("the " + CLIENT_KEY + " does not belong to the " + CLIENT_CERT
            + " (" + describe(cert) + ")", null);
      }
    }

    /** Subject, issuer, names and validity of a certificate, for error messages. */
    static String describe(X509Certificate c) {
      List<String> names = new ArrayList<>();
      try {
        Collection<List<?>> sans = c.getSubjectAlternativeNames();
        if (sans != null) {
          for (List<?> san : sans) {
            Object type = san.get(0);
            if (Integer.valueOf(2).equals(type)) {
              names.add("DNS:" + san.get(1));
            } else if (Integer.valueOf(7).equals(type)) {
              names.add("IP:" + san.get(1));
            }
          }
        }
      } catch (CertificateException e) {
        names.add("unreadable");
      }
      return "subject " + c.getSubjectX500Principal() + ", issuer " + c.getIssuerX500Principal()
          + ", names " + names + ", valid " + c.getNotBefore().toInstant() + " to "
          + c.getNotAfter().toInstant();
    }
  }
}
