package io.kollect.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority made at test time, issuing server and client certificates with chosen
 * names and validity periods, and writing them and their keys as PEM in the formats found in
 * {@code kubernetes.io/tls} Secrets. The one test CA of every module's TLS tests (HTTPS sinks,
 * Kafka TLS listeners).
 */
public final class TestCertificateAuthority {

  private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

  /** An issued certificate with its key pair. */
  public record Issued(X509Certificate certificate, KeyPair keys) {

    public String certificatePem() {
      return pem(certificate);
    }

    /** {@code PRIVATE KEY} (PKCS#8), what the JDK encodes. */
    public String pkcs8KeyPem() {
      return "-----BEGIN PRIVATE KEY-----\n"
          + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(keys.getPrivate().getEncoded())
          + "\n-----END PRIVATE KEY-----\n";
    }

    /** {@code RSA PRIVATE KEY} (PKCS#1) for RSA keys, as {@code openssl genrsa} writes it. */
    public String pkcs1KeyPem() {
      if (!keys.getPrivate().getAlgorithm().equals("RSA")) {
        throw new IllegalStateException("not an RSA key");
      }
      return pem(keys.getPrivate());
    }

    /**
     * {@code EC PRIVATE KEY} (SEC 1) with the named curve, as {@code openssl ecparam -genkey}
     * writes it.
     */
    public String sec1KeyPem() {
      ECPrivateKey key = (ECPrivateKey) keys.getPrivate();
      try {
        SubjectPublicKeyInfo pub = SubjectPublicKeyInfo.getInstance(keys.getPublic().getEncoded());
        byte[] der = new org.bouncycastle.asn1.sec.ECPrivateKey(256, key.getS(),
            new DERBitString(pub.getPublicKeyData().getBytes()), SECObjectIdentifiers.secp256r1)
            .getEncoded();
        return "-----BEGIN EC PRIVATE KEY-----\n"
            + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
            + "\n-----END EC PRIVATE KEY-----\n";
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** A server-side SSL context presenting this certificate, trusting {@code clientCa} if any. */
    public SSLContext serverContext(TestCertificateAuthority clientCa)
        throws GeneralSecurityException, IOException {
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      keyStore.load(null, null);
      keyStore.setKeyEntry("server", keys.getPrivate(), new char[0],
          new X509Certificate[] {certificate});
      KeyManagerFactory kmf = KeyManagerFactory.getInstance("SunX509");
      kmf.init(keyStore, new char[0]);
      TrustManagerFactory tmf = null;
      if (clientCa != null) {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("client-ca", clientCa.certificate());
        tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(trust);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
      return context;
    }
  }

  private final Issued self;

  private TestCertificateAuthority(Issued self) {
    this.self = self;
  }

  /** A self-signed EC CA valid from an hour ago for a day. */
  public static TestCertificateAuthority create(String commonName) {
    KeyPair keys = keyPair("EC");
    Instant now = Instant.now();
    X500Name name = new X500Name("CN=" + commonName);
    return new TestCertificateAuthority(new Issued(sign(name, keys.getPrivate(), name,
        keys, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)), true, List.of(),
        null), keys));
  }

  public X509Certificate certificate() {
    return self.certificate();
  }

  public String certificatePem() {
    return self.certificatePem();
  }

  /** A server certificate for {@code names} (IPs or DNS names), valid now. */
  public Issued server(String... names) {
    Instant now = Instant.now();
    return issue("server", "EC", now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)),
        KeyPurposeId.id_kp_serverAuth, names);
  }

  /** A server certificate for {@code names} whose validity ended yesterday. */
  public Issued expiredServer(String... names) {
    Instant now = Instant.now();
    return issue("server", "EC", now.minus(Duration.ofDays(3)), now.minus(Duration.ofDays(1)),
        KeyPurposeId.id_kp_serverAuth, names);
  }

  /** A client certificate with a key of {@code keyAlgorithm} ("EC" or "RSA"). */
  public Issued client(String commonName, String keyAlgorithm) {
    Instant now = Instant.now();
    return issue(commonName, keyAlgorithm, now.minus(Duration.ofHours(1)),
        now.plus(Duration.ofDays(1)), KeyPurposeId.id_kp_clientAuth);
  }

  /** A client certificate with an EC key. */
  public Issued client(String commonName) {
    return client(commonName, "EC");
  }

  /**
   * A certificate for {@code names} (IPs or DNS names) without an extended key usage, so one
   * peer may present it as a server and another as a client (a Kafka broker and its clients).
   */
  public Issued leaf(String commonName, String... names) {
    Instant now = Instant.now();
    return issue(commonName, "EC", now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)),
        null, names);
  }

  /** A client certificate whose validity ended yesterday. */
  public Issued expiredClient(String commonName) {
    Instant now = Instant.now();
    return issue(commonName, "EC", now.minus(Duration.ofDays(3)), now.minus(Duration.ofDays(1)),
        KeyPurposeId.id_kp_clientAuth);
  }

  private Issued issue(String commonName, String keyAlgorithm, Instant notBefore,
      Instant notAfter, KeyPurposeId purpose, String... names) {
    KeyPair keys = keyPair(keyAlgorithm);
    List<GeneralName> sans = new ArrayList<>();
    for (String n : names) {
      sans.add(new GeneralName(n.matches("[0-9.]+|.*:.*") ? GeneralName.iPAddress
          : GeneralName.dNSName, n));
    }
    X500Name issuer = new X500Name(self.certificate().getSubjectX500Principal().getName());
    return new Issued(sign(issuer, self.keys().getPrivate(), new X500Name("CN=" + commonName),
        keys, notBefore, notAfter, false, sans, purpose), keys);
  }

  private static X509Certificate sign(X500Name issuer, java.security.PrivateKey issuerKey,
      X500Name subject, KeyPair keys, Instant notBefore, Instant notAfter, boolean ca,
      List<GeneralName> sans, KeyPurposeId purpose) {
    try {
      JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer,
          BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(notBefore),
          Date.from(notAfter), subject, keys.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(ca
          ? KeyUsage.keyCertSign | KeyUsage.cRLSign
          : KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      if (!sans.isEmpty()) {
        b.addExtension(Extension.subjectAlternativeName, false,
            new GeneralNames(sans.toArray(new GeneralName[0])));
      }
      if (purpose != null) {
        b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      }
      String algorithm = issuerKey.getAlgorithm().equals("RSA") ? "SHA256withRSA"
          : "SHA256withECDSA";
      return new JcaX509CertificateConverter().getCertificate(
          b.build(new JcaContentSignerBuilder(algorithm).build(issuerKey)));
    } catch (Exception e) {
      throw new IllegalStateException("cannot issue a test certificate for " + subject, e);
    }
  }

  private static KeyPair keyPair(String algorithm) {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance(algorithm);
      if (algorithm.equals("EC")) {
        g.initialize(new ECGenParameterSpec("secp256r1"));
      } else {
        g.initialize(2048);
      }
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(Object o) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }
}
