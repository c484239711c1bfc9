package io.durablecheckout.activities;

import org.axonframework.common.Registration;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.gateway.EventGateway;
import org.axonframework.messaging.MessageDispatchInterceptor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Captures what a worker publishes, so a handler can be driven directly; not a store, nothing is persisted. */
public final class RecordingEventGateway implements EventGateway {

    private final List<Object> published = new CopyOnWriteArrayList<>();

    @Override
    public void publish(List<?> events) {
        published.addAll(events);
    }

    @Override
    public Registration registerDispatchInterceptor(
            MessageDispatchInterceptor<? super EventMessage<?>> dispatchInterceptor) {
        return () -> true;
    }

    public List<Object> published() {
        return new ArrayList<>(published);
    }

    public Object last() {
        return published.get(published.size() - 1);
    }

    public void clear() {
        published.clear();
    }
}
