package io.kollect.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP forwarder to a server (an API server) that a test can {@link #freeze()}: a
 * blackholed path, as behind a load balancer or VPN that lost its state. While frozen nothing is
 * forwarded in either direction and nothing is closed (no FIN, no RST: bytes are swallowed), and
 * connections made meanwhile are held open but get no answer. {@link #thaw()} makes connections
 * opened from then on work again; the ones that existed stay silent for good, so a client recovers
 * only by giving up on them and connecting anew, which is what it must do on a real network.
 * {@link #stop()} and {@link #restart()} model the other outage: a server that is down (its
 * connections closed, new ones refused) and comes back on the same port.
 */
public final class FreezableTcpProxy implements AutoCloseable {

  private final int targetPort;
  private final int port;
  private volatile ServerSocket server;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicLong bytesToClients = new AtomicLong();
  private volatile boolean frozen;

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

  /** Starts forwarding a free loopback port to {@code targetPort} on loopback. */
  public static FreezableTcpProxy to(int targetPort) {
    try {
      return new FreezableTcpProxy(targetPort);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private FreezableTcpProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.port = s.getLocalPort();
    listen(s);
  }

  private void listen(ServerSocket s) {
    server = s;
    Thread acceptor = new Thread(() -> accept(s), "freezable-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The loopback port clients connect to. */
  public int port() {
    return port;
  }

  /**
   * The server is gone, as when it stops: the port refuses connections and every open one is
   * closed (the client sees its connections end and new ones refused, not silence).
   */
  public synchronized void stop() {
    close();
  }

  /** The server is back on the same port. */
  public synchronized void restart() {
    try {
      ServerSocket s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
      frozen = false;
      listen(s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Connections accepted so far. */
  public int accepted() {
    return accepted.get();
  }

  /** Bytes forwarded from the server to clients so far (what a client received on the wire). */
  public long bytesToClients() {
    return bytesToClients.get();
  }

  /**
   * Closes every open connection, as a restarted load balancer does; new ones are forwarded as
   * before (every client must connect anew, so an open watch cannot hide which credential a
   * client now uses).
   */
  public void dropConnections() {
    for (Link link : links) {
      closeQuietly(link);
    }
  }

  /** Stops every connection, open and new, without closing any. */
  public void freeze() {
    frozen = true;
    links.forEach(l -> l.silent = true);
  }

  /** New connections work again; the frozen ones stay silent. */
  public void thaw() {
    frozen = false;
  }

  private void accept(ServerSocket server) {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        accepted.incrementAndGet();
        if (frozen) {
          // held open, never answered: the client's request waits until it gives up
          Link dead = new Link(client, null, true);
          links.add(dead);
          pipe(dead, client, null, null);
          continue;
        }
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        Link link = new Link(client, upstream, false);
        links.add(link);
        pipe(link, client, upstream, null);
        pipe(link, upstream, client, bytesToClients);
      } catch (IOException e) {
        // closed
      }
    }
  }

  private void pipe(Link link, Socket from, Socket to, AtomicLong counted) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16384];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to == null ? null : to.getOutputStream();
        int n;
        while ((n = in.read(buffer)) >= 0) {
          if (link.silent || out == null) {
            continue; // lost, and the sender is not told
          }
          out.write(buffer, 0, n);
          out.flush();
          if (counted != null) {
            counted.addAndGet(n);
          }
        }
      } catch (IOException e) {
        // closed or reset
      }
      if (!link.silent) {
        closeQuietly(link);
      }
      // a silent link loses the FIN or RST too: the other side stays open, as on a dead path
    }, "freezable-proxy-pipe");
    t.setDaemon(true);
    t.start();
  }

  private void closeQuietly(Link link) {
    for (Socket s : new Socket[] {link.client, link.upstream}) {
      if (s != null) {
        try {
          s.close();
        } catch (IOException e) {
          // already closed
        }
      }
    }
    links.remove(link);
  }

  /** Closes the listener and every connection. */
  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // already closed
    }
    links.forEach(l -> l.silent = false);
    for (Link link : links) {
      closeQuietly(link);
    }
  }
}
