package io.kollect.operator;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
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
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority made at test time (EC P-256, valid from an hour ago for a day) issuing
 * server and client certificates, written as PEM as a {@code kubernetes.io/tls} Secret holds them.
 * The minimal part of kollect-export's test {@code TlsCertificateAuthority} the operator ITs need.
 */
final class TestCertificates {

  private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

  /** An issued certificate with its key pair. */
  record Issued(X509Certificate certificate, KeyPair keys) {

    String certificatePem() {
      StringWriter out = new StringWriter();
      try (JcaPEMWriter w = new JcaPEMWriter(out)) {
        w.writeObject(certificate);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return out.toString();
    }

    /** {@code PRIVATE KEY} (PKCS#8). */
    String keyPem() {
      return "-----BEGIN PRIVATE KEY-----\n"
          + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(keys.getPrivate().getEncoded())
          + "\n-----END PRIVATE KEY-----\n";
    }

    /** A server-side SSL context presenting this certificate and trusting client certificates of {@code clientCa}. */
    SSLContext serverContext(TestCertificates clientCa) throws GeneralSecurityException, IOException {
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      keyStore.load(null, null);
      keyStore.setKeyEntry("server", keys.getPrivate(), new char[0],
          new X509Certificate[] {certificate});
      KeyManagerFactory kmf = KeyManagerFactory.getInstance("SunX509");
      kmf.init(keyStore, new char[0]);
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("client-ca", clientCa.self.certificate());
      TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
      tmf.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      return context;
    }
  }

  private final Issued self;

  private TestCertificates(Issued self) {
    this.self = self;
  }

  /** A self-signed CA. */
  static TestCertificates authority(String commonName) {
    KeyPair keys = keyPair();
    X500Name name = new X500Name("CN=" + commonName);
    return new TestCertificates(new Issued(sign(name, keys.getPrivate(), name, keys, true,
        List.of(), null), keys));
  }

  String certificatePem() {
    return self.certificatePem();
  }

  /** A server certificate for {@code names} (IP addresses or DNS names). */
  Issued server(String... names) {
    return issue("server", KeyPurposeId.id_kp_serverAuth, names);
  }

  /** A client certificate. */
  Issued client(String commonName) {
    return issue(commonName, KeyPurposeId.id_kp_clientAuth);
  }

  private Issued issue(String commonName, KeyPurposeId purpose, String... names) {
    KeyPair keys = keyPair();
    List<GeneralName> sans = new ArrayList<>();
    for (String n : names) {
      sans.add(new GeneralName(n.matches("[0-9.]+") ? GeneralName.iPAddress : GeneralName.dNSName,
          n));
    }
    X500Name issuer = new X500Name(self.certificate().getSubjectX500Principal().getName());
    return new Issued(sign(issuer, self.keys().getPrivate(), new X500Name("CN=" + commonName),
        keys, false, sans, purpose), keys);
  }

  private static X509Certificate sign(X500Name issuer, PrivateKey issuerKey, X500Name subject,
      KeyPair keys, boolean ca, List<GeneralName> sans, KeyPurposeId purpose) {
    Instant now = Instant.now();
    try {
      JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer,
          BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(now.minus(Duration.ofHours(1))),
          Date.from(now.plus(Duration.ofDays(1))), subject, keys.getPublic());
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
      return new JcaX509CertificateConverter().getCertificate(
          b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
    } catch (Exception e) {
      throw new IllegalStateException("cannot issue a test certificate for " + subject, e);
    }
  }

  private static KeyPair keyPair() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
