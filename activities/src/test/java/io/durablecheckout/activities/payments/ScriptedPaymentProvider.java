package io.durablecheckout.activities.payments;

import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A provider port stub for resource tests: answers from a script and records every call with its operation id.
 * (The real HTTP adapter is tested against the simulator over HTTP in the simulator tests.)
 */
final class ScriptedPaymentProvider implements PaymentProvider {

    final List<String> calls = new CopyOnWriteArrayList<>();
    private final Deque<Object> answers = new ArrayDeque<>();
    volatile CountDownLatch gate;
    volatile CountDownLatch entered;

    synchronized ScriptedPaymentProvider then(Object answer) {
        answers.add(answer);
        return this;
    }

    private synchronized Object next() {
        if (answers.isEmpty()) throw new AssertionError("provider called more often than scripted: " + calls);
        return answers.poll();
    }

    private void passGate() {
        if (entered != null) entered.countDown();
        if (gate != null) {
            try {
                if (!gate.await(10, TimeUnit.SECONDS)) throw new AssertionError("gate not opened");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public AuthorizationAnswer authorize(OperationId operationId, Money amount, String paymentToken) {
        calls.add("authorize " + operationId);
        passGate();
        return (AuthorizationAnswer) next();
    }

    @Override
    public LookupAnswer lookup(OperationId authorizationOperationId) {
        calls.add("lookup " + authorizationOperationId);
        return (LookupAnswer) next();
    }

    @Override
    public CompensationAnswer voidAuthorization(OperationId authorizationOperationId, OperationId voidOperationId,
                                                Money amount) {
        calls.add("void " + authorizationOperationId + " key " + voidOperationId);
        return (CompensationAnswer) next();
    }

    @Override
    public CompensationAnswer refund(OperationId authorizationOperationId, OperationId refundOperationId, Money amount) {
        calls.add("refund " + authorizationOperationId + " key " + refundOperationId);
        return (CompensationAnswer) next();
    }

    @Override
    public CaptureAnswer capture(OperationId authorizationOperationId, OperationId captureOperationId, Money amount) {
        calls.add("capture " + authorizationOperationId + " key " + captureOperationId);
        return (CaptureAnswer) next();
    }

    static CaptureAnswer captured(String reference, Money amount) {
        return new CaptureAnswer(CaptureStatus.CAPTURED, reference, amount, null);
    }

    static CaptureAnswer captureAnswer(CaptureStatus status, String detail) {
        return new CaptureAnswer(status, null, null, detail);
    }

    static AuthorizationAnswer authorized(String reference) {
        return new AuthorizationAnswer(AuthorizationStatus.AUTHORIZED, reference, null);
    }

    static AuthorizationAnswer answer(AuthorizationStatus status, String detail) {
        return new AuthorizationAnswer(status, null, detail);
    }

    static LookupAnswer lookupAnswer(PaymentLookupOutcome outcome, String reference) {
        return new LookupAnswer(outcome, reference, null);
    }
}
