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

/**
 * A loopback TCP forwarder between a client and the API server that a test can cut (close the
 * listener and every open connection) and restore on the same port: a broken network, not a
 * stopped server.
 */
final class TcpProxy implements AutoCloseable {

  private final int targetPort;
  private final int port;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile ServerSocket server;

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
    for (Socket socket : sockets) {
      socket.close();
    }
    sockets.clear();
  }

  private void accept(ServerSocket s) {
    while (!s.isClosed()) {
      try {
        Socket client = s.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(client);
        sockets.add(upstream);
        pipe(client, upstream);
        pipe(upstream, client);
      } catch (IOException e) {
        // listener closed by cut()
      }
    }
  }

  private void pipe(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16384];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // connection cut
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }, "tcp-proxy-pipe");
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
  public void close() throws IOException {
    cut();
  }
}
