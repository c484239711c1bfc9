package io.durablecheckout.activities.receipts;

import io.durablecheckout.api.values.OperationId;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import org.springframework.mail.MailException;
import org.springframework.mail.MailSendException;
import org.springframework.mail.javamail.JavaMailSender;
import org.springframework.mail.javamail.MimeMessageHelper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Receipts and notices over SMTP ({@code checkout.mail.transport=smtp}; host, port, credentials and TLS are Spring
 * Boot's {@code spring.mail.*}). The {@code Message-ID} is derived from the operation id, so the one resend decision
 * 63 allows (a crash between the server's acceptance and our commit) carries the same id as the first message and is
 * recognisable downstream; the operation id also travels as {@code X-Checkout-Operation}. A cancellation notice
 * names the receipt's id (derived from the checkout id the same way) in {@code In-Reply-To} and {@code References},
 * so mail clients thread it under the receipt. From carries the merchant's display name when the message has one.
 * <p>
 * SMTP answers: a recipient refused with a 5xx is final ({@link MailDeliveryException#finalForRecipient()}); a 4xx,
 * a refused or dropped connection, a timeout or any other failure is retryable (nothing was accepted). Bounces that
 * arrive later, by mail, are not read.
 */
public class SmtpMailPort implements MailPort {

    public static final String OPERATION_HEADER = "X-Checkout-Operation";
    private static final Pattern NOT_ATEXT = Pattern.compile("[^A-Za-z0-9._-]");
    /** Servers quote the refused address in their answer; the detail goes into the checkout's history. */
    private static final Pattern ADDRESS = Pattern.compile("[^\\s<>,;]+@[^\\s<>,;]+");

    private final JavaMailSender sender;
    private final String from;
    private final String messageIdDomain;

    public SmtpMailPort(JavaMailSender sender, String from, String messageIdDomain) {
        this.sender = sender;
        this.from = from;
        this.messageIdDomain = messageIdDomain;
    }

    /** {@code <op-id with / as .>@domain}: the same operation always gets the same id. */
    public static String messageId(OperationId operationId, String domain) {
        return "<" + NOT_ATEXT.matcher(operationId.value().replace('/', '.')).replaceAll("-") + "@" + domain + ">";
    }

    @Override
    public void send(OperationId operationId, String idempotencyKey, OutboundMessage message) {
        MimeMessage mime = sender.createMimeMessage();
        try {
            MimeMessageHelper helper = new MimeMessageHelper(mime, false, StandardCharsets.UTF_8.name());
            if (message.fromName() != null && !message.fromName().isBlank()) {
                helper.setFrom(from, message.fromName());
            } else {
                helper.setFrom(from);
            }
            helper.setTo(message.recipient());
            helper.setSubject(message.subject());
            if (message.html() != null) {
                // the two renderings of one message: multipart/alternative, plain text first (the least preferred)
                MimeMultipart alternative = new MimeMultipart("alternative");
                MimeBodyPart text = new MimeBodyPart();
                text.setText(message.body(), StandardCharsets.UTF_8.name(), "plain");
                MimeBodyPart html = new MimeBodyPart();
                html.setText(message.html(), StandardCharsets.UTF_8.name(), "html");
                alternative.addBodyPart(text);
                alternative.addBodyPart(html);
                mime.setContent(alternative);
            } else {
                helper.setText(message.body());
            }
            // JavaMailSenderImpl keeps a Message-ID set before sending (saveChanges would otherwise make a random one)
            mime.setHeader("Message-ID", messageId(new OperationId(idempotencyKey), messageIdDomain));
            if (message.inReplyTo() != null) {
                // a notice threads under the receipt it follows: that message's id is derived the same way
                String parent = messageId(message.inReplyTo(), messageIdDomain);
                mime.setHeader("In-Reply-To", parent);
                mime.setHeader("References", parent);
            }
            mime.setHeader(OPERATION_HEADER, operationId.value());
        } catch (MessagingException | java.io.UnsupportedEncodingException e) {
            throw new IllegalArgumentException("message for operation " + operationId + " cannot be built", e);
        }
        try {
            sender.send(mime);
        } catch (MailException e) {
            throw classify(operationId, e);
        }
    }

    static MailDeliveryException classify(OperationId operationId, MailException e) {
        List<Throwable> chain = chain(e);
        boolean recipientRefused = chain.stream().anyMatch(t -> t instanceof SendFailedException s
                && s.getInvalidAddresses() != null && s.getInvalidAddresses().length > 0);
        String detail = chain.stream().map(Throwable::getMessage).filter(m -> m != null && !m.isBlank())
                .map(m -> ADDRESS.matcher(m.strip()).replaceAll("[address]")).distinct().reduce((a, b) -> a + "; " + b).orElse(e.getClass().getSimpleName());
        return new MailDeliveryException("SMTP " + (recipientRefused ? "refused the recipient (final)"
                : "did not accept the message (retryable)") + " for " + operationId + ": " + detail,
                recipientRefused, e);
    }

    /** The exception, its causes, the failed messages' exceptions and Jakarta Mail's next-exception links. */
    private static List<Throwable> chain(Throwable top) {
        List<Throwable> out = new ArrayList<>();
        Set<Throwable> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        List<Throwable> todo = new ArrayList<>(List.of(top));
        while (!todo.isEmpty()) {
            Throwable t = todo.remove(0);
            if (t == null || !seen.add(t)) continue;
            out.add(t);
            todo.add(t.getCause());
            if (t instanceof MessagingException m) todo.add(m.getNextException());
            if (t instanceof MailSendException s) {
                for (Map.Entry<Object, Exception> failed : s.getFailedMessages().entrySet()) todo.add(failed.getValue());
            }
        }
        return out;
    }
}
