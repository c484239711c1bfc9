package io.durablecheckout.activities.receipts;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal SMTP server on a loopback port that answers {@code RCPT TO} with a scripted reply (GreenMail accepts
 * every recipient), or drops the connection at {@code MAIL FROM}. Counts the recipients it was asked for and the
 * messages it accepted.
 */
final class ScriptedSmtpServer implements AutoCloseable {

    static final String DROP = "drop";

    private final ServerSocket socket;
    private final Thread acceptor;
    private final AtomicInteger recipientsAsked = new AtomicInteger();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile String rcptReply;

    ScriptedSmtpServer(String rcptReply) throws IOException {
        this.rcptReply = rcptReply;
        this.socket = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::serve, "scripted-smtp");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return socket.getLocalPort();
    }

    int recipientsAsked() {
        return recipientsAsked.get();
    }

    int accepted() {
        return accepted.get();
    }

    private void serve() {
        while (!socket.isClosed()) {
            try (Socket client = socket.accept()) {
                converse(client);
            } catch (IOException e) {
                // closed, or the client went away: next connection
            }
        }
    }

    private void converse(Socket client) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.US_ASCII));
        OutputStream out = client.getOutputStream();
        reply(out, "220 scripted ESMTP");
        String line;
        while ((line = in.readLine()) != null) {
            String verb = line.length() >= 4 ? line.substring(0, 4).toUpperCase() : line.toUpperCase();
            switch (verb) {
                case "EHLO", "HELO" -> reply(out, "250 scripted");
                case "MAIL" -> {
                    if (DROP.equals(rcptReply)) return; // the connection drops before anything is accepted
                    reply(out, "250 2.1.0 OK");
                }
                case "RCPT" -> {
                    recipientsAsked.incrementAndGet();
                    reply(out, rcptReply);
                }
                case "DATA" -> {
                    reply(out, "354 go ahead");
                    while ((line = in.readLine()) != null && !line.equals(".")) {
                        // the message
                    }
                    accepted.incrementAndGet();
                    reply(out, "250 2.0.0 queued");
                }
                case "QUIT" -> {
                    reply(out, "221 bye");
                    return;
                }
                default -> reply(out, "250 OK");
            }
        }
    }

    private static void reply(OutputStream out, String line) throws IOException {
        out.write((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
