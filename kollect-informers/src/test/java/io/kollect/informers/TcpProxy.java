package io.kollect.informers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP forwarder between a client and the API server that a test can break in two ways:
 *
 * <ul>
 *   <li>{@link #cut()} closes the listener and every open connection, {@link #open()} restores it
 *       on the same port: a broken network, not a stopped server;
 *   <li>{@link #silence()} stops forwarding bytes in both directions without closing anything
 *       (no FIN, no RST: the bytes are swallowed), and new connections are accepted but silent
 *       too — a partitioned load balancer. {@link #thaw()} lets only connections accepted after it
 *       flow again: the ones that existed stay silent for good, as behind a NAT or load balancer
 *       that lost their state.
 * </ul>
 */
final class TcpProxy implements AutoCloseable {

  private final int targetPort;
  private final int port;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final AtomicInteger accepted = new AtomicInteger();
  private volatile ServerSocket server;
  /** Whether connections accepted now start silent. */
  private volatile boolean silenceNew;

  /** One client connection and its upstream; silent links swallow what they read. */
  private static final class Link {
    final Socket client;
    final Socket upstream;
    volatile boolean silent;

    Link(Socket client, Socket upstream, boolean silent) {
      this.client = client;
      this.upstream = upstream;
      this.silent = silent;
    }
  }

  TcpProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      this.port = probe.getLocalPort();
    }
    open();
  }

  int port() {
    return port;
  }

  /** Connections accepted so far. */
  int accepted() {
    return accepted.get();
  }

  synchronized void open() throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    server = s;
    Thread acceptor = new Thread(() -> accept(s), "tcp-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Closes the listener and every connection through it. */
  synchronized void cut() throws IOException {
    ServerSocket s = server;
    server = null;
    if (s != null) {
      s.close();
    }
    for (Link link : links) {
      link.client.close();
      link.upstream.close();
    }
    links.clear();
  }

  /** Every connection, open and future, stops forwarding; nothing is closed. */
  void silence() {
    silenceNew = true;
    links.forEach(l -> l.silent = true);
  }

  /** Connections accepted from now on forward again; the existing ones stay silent for good. */
  void thaw() {
    silenceNew = false;
  }

  private void accept(ServerSocket s) {
    while (!s.isClosed()) {
      try {
        Socket client = s.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        accepted.incrementAndGet();
        Link link = new Link(client, upstream, silenceNew);
        links.add(link);
        pipe(link, client, upstream);
        pipe(link, upstream, client);
      } catch (IOException e) {
        // listener closed by cut()
      }
    }
  }

  private void pipe(Link link, Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16384];
      try {
        // not closed here: closing a socket's stream closes the socket
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        int n;
        while ((n = in.read(buffer)) >= 0) {
          if (link.silent) {
            // a partition: the bytes are lost, the sender is not told
            continue;
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // connection cut or reset
      }
      if (!link.silent) {
        closeQuietly(link);
      }
      // on a silent link the FIN or RST is lost too: the other side stays open, as on a dead path
    }, "tcp-proxy-pipe");
    t.setDaemon(true);
    t.start();
  }

  private void closeQuietly(Link link) {
    for (Socket s : new Socket[] {link.client, link.upstream}) {
      try {
        s.close();
      } catch (IOException e) {
        // already closed
      }
    }
    links.remove(link);
  }

  @Override
  public void close() throws IOException {
    cut();
  }
}
