package io.kollect.operator;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP forwarder to an API server whose open connections a test can {@link #dropAll()
 * drop} (closed at once, as a restarted load balancer does): every client must connect anew, so
 * an open watch cannot hide which credential a client now uses.
 */
final class DroppingTcpProxy implements AutoCloseable {

  private final int targetPort;
  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

  DroppingTcpProxy(int targetPort) {
    this.targetPort = targetPort;
    try {
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread acceptor = new Thread(this::accept, "dropping-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** Closes every open connection; new ones are forwarded as before. */
  void dropAll() {
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(client);
        sockets.add(upstream);
        pipe(client, upstream);
        pipe(upstream, client);
      } catch (IOException e) {
        // closed
      }
    }
  }

  private void pipe(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16384];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        int n;
        while ((n = in.read(buffer)) >= 0) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // closed or reset
      }
      closeQuietly(from);
      closeQuietly(to);
    }, "dropping-proxy-pipe");
    t.setDaemon(true);
    t.start();
  }

  private void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
    sockets.remove(s);
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // already closed
    }
    dropAll();
  }
}
