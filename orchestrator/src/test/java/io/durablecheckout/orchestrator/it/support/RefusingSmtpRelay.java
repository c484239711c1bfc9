package io.durablecheckout.orchestrator.it.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An SMTP front for GreenMail (which accepts every recipient): relays each command line to the server behind it and
 * its answers back, except {@code RCPT TO} for an address whose local part is {@code refused}, which it answers
 * itself with {@code 550 5.1.1}, as a real server refuses an unknown mailbox. Counts those refusals per address.
 */
public final class RefusingSmtpRelay implements AutoCloseable {

    private final ServerSocket socket;
    private final int upstreamPort;
    private final ExecutorService connections = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "smtp-relay");
        t.setDaemon(true);
        return t;
    });
    private final ConcurrentHashMap<String, AtomicInteger> refusals = new ConcurrentHashMap<>();

    public RefusingSmtpRelay(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        connections.submit(this::accept);
    }

    public int port() {
        return socket.getLocalPort();
    }

    public int refusalsOf(String address) {
        AtomicInteger n = refusals.get(address.toLowerCase(Locale.ROOT));
        return n == null ? 0 : n.get();
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                Socket client = socket.accept();
                connections.submit(() -> relay(client));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void relay(Socket client) {
        try (client; Socket server = new Socket(InetAddress.getLoopbackAddress(), upstreamPort)) {
            BufferedReader fromClient = reader(client);
            BufferedReader fromServer = reader(server);
            OutputStream toClient = client.getOutputStream();
            OutputStream toServer = server.getOutputStream();
            answer(fromServer, toClient); // greeting
            String line;
            while ((line = fromClient.readLine()) != null) {
                String upper = line.toUpperCase(Locale.ROOT);
                if (upper.startsWith("RCPT TO:")) {
                    String address = line.substring(line.indexOf('<') + 1, line.lastIndexOf('>')).toLowerCase(Locale.ROOT);
                    if (address.startsWith("refused@")) {
                        refusals.computeIfAbsent(address, a -> new AtomicInteger()).incrementAndGet();
                        write(toClient, "550 5.1.1 <" + address + ">: Recipient address rejected: User unknown");
                        continue;
                    }
                }
                write(toServer, line);
                String reply = answer(fromServer, toClient);
                if (upper.equals("DATA") && reply.startsWith("354")) {
                    while ((line = fromClient.readLine()) != null) {
                        write(toServer, line);
                        if (line.equals(".")) break;
                    }
                    answer(fromServer, toClient);
                } else if (upper.equals("QUIT")) {
                    return;
                }
            }
        } catch (IOException e) {
            // a side went away: so does this connection
        }
    }

    /** Copies one (possibly multi-line) reply; returns its last line. */
    private static String answer(BufferedReader from, OutputStream to) throws IOException {
        String line;
        do {
            line = from.readLine();
            if (line == null) throw new IOException("closed");
            write(to, line);
        } while (line.length() > 3 && line.charAt(3) == '-');
        return line;
    }

    private static BufferedReader reader(Socket s) throws IOException {
        return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
    }

    private static void write(OutputStream out, String line) throws IOException {
        out.write((line + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
        connections.shutdownNow();
    }
}
