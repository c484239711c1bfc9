package io.durablecheckout.activities.receipts;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.mail.javamail.JavaMailSender;
import org.springframework.mail.javamail.JavaMailSenderImpl;

import java.util.Map;
import java.util.Properties;

/**
 * {@code checkout.mail.transport}: {@code sink} (the default: the demo's {@link MailSink}) or {@code smtp}
 * ({@link SmtpMailPort} through Spring Boot's {@code JavaMailSender}, configured by {@code spring.mail.*}). A start
 * with {@code smtp} and no {@code spring.mail.host} or {@code checkout.mail.from} is refused
 * ({@code StartupSafetyCheck}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "checkout.mail.transport", havingValue = "smtp")
public class MailTransportConfiguration {

    public static final String TRANSPORT = "checkout.mail.transport";
    public static final String FROM = "checkout.mail.from";
    public static final String MESSAGE_ID_DOMAIN = "checkout.mail.message-id-domain";

    /** Without them a dead server holds a worker thread (and its lease) for as long as the socket lives. */
    private static final Map<String, String> TIMEOUTS = Map.of(
            "mail.smtp.connectiontimeout", "10000", "mail.smtp.timeout", "10000", "mail.smtp.writetimeout", "10000");

    @Bean
    public MailPort smtpMailPort(ObjectProvider<JavaMailSender> senders, Environment env) {
        JavaMailSender sender = senders.getIfAvailable();
        if (sender == null) {
            throw new IllegalStateException(TRANSPORT + "=smtp needs spring.mail.host (SPRING_MAIL_HOST)");
        }
        if (sender instanceof JavaMailSenderImpl impl) {
            Properties props = impl.getJavaMailProperties();
            TIMEOUTS.forEach(props::putIfAbsent);
        }
        String from = env.getRequiredProperty(FROM);
        String domain = env.getProperty(MESSAGE_ID_DOMAIN, from.substring(from.indexOf('@') + 1));
        return new SmtpMailPort(sender, from, domain);
    }
}
