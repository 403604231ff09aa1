package io.kollect.export.postgres;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.postgresql.ssl.WrappedFactory;

/**
 * The TLS socket factory the PostgreSQL driver uses for the postgres sink's connections ({@code
 * sslfactory}), built from the PEM text the sink's suppliers returned, so no certificate or key is
 * written to a file. The driver instantiates it by class name with the connection's properties,
 * which carry the PEM text under {@value #CA}, {@value #CLIENT_CERT} and {@value #CLIENT_KEY};
 * host name verification stays the driver's ({@code sslmode=verify-full}). Not an API of its own:
 * it is public only because the driver loads it by name.
 */
public final class PemSslFactory extends WrappedFactory {

  static final String CA = "kollect.tls.caPem";
  static final String CLIENT_CERT = "kollect.tls.clientCertPem";
  static final String CLIENT_KEY = "kollect.tls.clientKeyPem";

  private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "EdDSA");

  /** Called by the driver with the connection's properties. */
  public PemSslFactory(Properties info) throws GeneralSecurityException {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers(info.getProperty(CLIENT_CERT), info.getProperty(CLIENT_KEY)),
          trustManagers(info.getProperty(CA)).getTrustManagers(), null);
      factory = context.getSocketFactory();
    } catch (java.io.IOException e) {
      throw new GeneralSecurityException("cannot build the TLS context: " + e.getMessage(), e);
    }
  }

  private static TrustManagerFactory trustManagers(String caPem)
      throws GeneralSecurityException, java.io.IOException {
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(
        TrustManagerFactory.getDefaultAlgorithm());
    if (caPem == null) {
      tmf.init((KeyStore) null);
      return tmf;
    }
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    int i = 0;
    for (Certificate c : certificates(caPem, "tls.caPem")) {
      trust.setCertificateEntry("ca-" + i++, c);
    }
    tmf.init(trust);
    return tmf;
  }

  private static KeyManager[] keyManagers(String certPem, String keyPem)
      throws GeneralSecurityException, java.io.IOException {
    if (certPem == null || keyPem == null) {
      return null;
    }
    Collection<? extends Certificate> chain = certificates(certPem, "tls.clientCertPem");
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    char[] password = new char[0];
    keys.setKeyEntry("client", privateKey(keyPem), password, chain.toArray(new Certificate[0]));
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, password);
    return kmf.getKeyManagers();
  }

  private static Collection<? extends Certificate> certificates(String pem, String field)
      throws GeneralSecurityException {
    Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509")
        .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
    if (certs.isEmpty()) {
      throw new GeneralSecurityException(field + ": no certificate in the PEM text");
    }
    return certs;
  }

  /** An unencrypted PKCS#8 key ({@code -----BEGIN PRIVATE KEY-----}). */
  static PrivateKey privateKey(String pem) throws GeneralSecurityException {
    String begin = "-----BEGIN PRIVATE KEY-----";
    int start = pem.indexOf(begin);
    int end = pem.indexOf("-----END PRIVATE KEY-----");
    if (start < 0 || end < start) {
      throw new GeneralSecurityException("tls.clientKeyPem: expected an unencrypted PKCS#8 key"
          + " (-----BEGIN PRIVATE KEY-----); convert with openssl pkcs8 -topk8 -nocrypt");
    }
    byte[] der = Base64.getMimeDecoder().decode(pem.substring(start + begin.length(), end));
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        // not this algorithm: try the next
      }
    }
    throw new GeneralSecurityException("tls.clientKeyPem: not an RSA, EC or EdDSA key");
  }
}
