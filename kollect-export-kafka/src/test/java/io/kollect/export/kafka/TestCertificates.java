package io.kollect.export.kafka;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A CA made at test time and the certificates it signs, as PEM text (what a {@code
 * kubernetes.io/tls} Secret holds). A trimmed sibling of kollect-export's test CA, which is not
 * shared across modules.
 */
final class TestCertificates {

  private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

  /** A certificate and its key, as PEM. */
  record Issued(String certificatePem, String pkcs8KeyPem) {}

  private final X500Name name;
  private final KeyPair keys;
  private final String certificatePem;

  private TestCertificates(String commonName) {
    this.name = new X500Name("CN=" + commonName);
    this.keys = keyPair();
    this.certificatePem = pem(sign(name, keys, true, null));
  }

  static TestCertificates authority(String commonName) {
    return new TestCertificates(commonName);
  }

  String certificatePem() {
    return certificatePem;
  }

  /** A certificate for {@code 127.0.0.1} (IP SAN), for a server or a client. */
  Issued issue(String commonName) {
    KeyPair leaf = keyPair();
    X509Certificate cert = sign(new X500Name("CN=" + commonName), leaf, false, "127.0.0.1");
    return new Issued(pem(cert), "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(leaf.getPrivate().getEncoded())
        + "\n-----END PRIVATE KEY-----\n");
  }

  private X509Certificate sign(X500Name subject, KeyPair subjectKeys, boolean ca, String ip) {
    Instant now = Instant.now();
    try {
      JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name,
          BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(now.minus(Duration.ofHours(1))),
          Date.from(now.plus(Duration.ofDays(1))), subject, subjectKeys.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(ca
          ? KeyUsage.keyCertSign | KeyUsage.cRLSign
          : KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      if (ip != null) {
        b.addExtension(Extension.subjectAlternativeName, false,
            new GeneralNames(new GeneralName(GeneralName.iPAddress, ip)));
      }
      PrivateKey signer = ca ? subjectKeys.getPrivate() : keys.getPrivate();
      return new JcaX509CertificateConverter().getCertificate(
          b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
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
