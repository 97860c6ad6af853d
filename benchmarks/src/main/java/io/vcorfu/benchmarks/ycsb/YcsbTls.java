package io.vcorfu.benchmarks.ycsb;

import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.TlsContexts;
import java.nio.file.Path;
import java.util.Properties;
import javax.net.ssl.SSLContext;
import site.ycsb.DBException;

/**
 * The TLS files a binding is given as YCSB properties: {@code DB.tls.ca} (the CA that signed the
 * server's certificate; TLS is on when it is set) with {@code DB.tls.cert} and {@code DB.tls.key}
 * (the client's certificate and key, PEM), DB being the binding's name.
 */
final class YcsbTls {
  private YcsbTls() {}

  /** The files of binding {@code db}, or null when {@code DB.tls.ca} is not set. */
  static TlsOptions options(Properties properties, String db) throws DBException {
    String ca = properties.getProperty(db + ".tls.ca");
    String cert = properties.getProperty(db + ".tls.cert");
    String key = properties.getProperty(db + ".tls.key");
    if (ca == null) {
      if (cert != null || key != null) {
        throw new DBException(db + ".tls.cert and " + db + ".tls.key need " + db + ".tls.ca");
      }
      return null;
    }
    if ((cert == null) != (key == null)) {
      throw new DBException("give " + db + ".tls.cert and " + db + ".tls.key together");
    }
    return cert == null
        ? TlsOptions.trusting(Path.of(ca))
        : new TlsOptions(Path.of(ca), Path.of(cert), Path.of(key));
  }

  /** A JDK TLS context with the files of binding {@code db}, or null without TLS. */
  static SSLContext context(Properties properties, String db) throws DBException {
    TlsOptions tls = options(properties, db);
    try {
      return tls == null ? null : TlsContexts.load(tls).jdkContext();
    } catch (IllegalArgumentException e) {
      throw new DBException(db + " TLS: " + e.getMessage(), e);
    }
  }
}
