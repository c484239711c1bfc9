package io.durablecheckout.api.command;

import io.durablecheckout.api.values.CaptureMode;
import io.durablecheckout.api.values.ReceiptDetails;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

import java.time.Instant;
import java.util.List;

public record StartCheckoutCommand(@TargetAggregateIdentifier CheckoutId checkoutId, TenantId tenantId,
                                   List<LineItem> items, Money amount, String paymentToken, String customerEmail,
                                   String idempotencyKey, String requestFingerprint, Instant requestedAt,
                                   ReceiptDetails receipt, CaptureMode capture)
        implements CheckoutCommand {

    /** Captured on confirmation (the default mode). */
    public StartCheckoutCommand(CheckoutId checkoutId, TenantId tenantId, List<LineItem> items, Money amount,
                                String paymentToken, String customerEmail, String idempotencyKey,
                                String requestFingerprint, Instant requestedAt, ReceiptDetails receipt) {
        this(checkoutId, tenantId, items, amount, paymentToken, customerEmail, idempotencyKey, requestFingerprint,
                requestedAt, receipt, null);
    }

    public StartCheckoutCommand(CheckoutId checkoutId, TenantId tenantId, List<LineItem> items, Money amount,
                                String paymentToken, String customerEmail, String idempotencyKey,
                                String requestFingerprint, Instant requestedAt) {
        this(checkoutId, tenantId, items, amount, paymentToken, customerEmail, idempotencyKey, requestFingerprint,
                requestedAt, null);
    }
}
