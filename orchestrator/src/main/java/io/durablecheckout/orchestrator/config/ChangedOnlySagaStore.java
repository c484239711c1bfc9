package io.durablecheckout.orchestrator.config;

import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.modelling.saga.AssociationValue;
import org.axonframework.modelling.saga.AssociationValues;
import org.axonframework.modelling.saga.repository.SagaStore;
import org.axonframework.serialization.Serializer;

import javax.annotation.Nonnull;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The JDBC saga store, without the UPDATE of a saga that its handler left as it was loaded. Axon writes every saga
 * it invoked back at commit; the CheckoutSaga's state is set when it starts and its result handlers only send
 * commands, so three of a checkout's saga writes stored the same bytes again. The form a saga had when it was loaded
 * is kept for the current unit of work only (never across transactions: nothing is cached), and at commit a saga
 * whose form and associations are unchanged is not written. The load's row lock ({@code FOR UPDATE}) is held to the
 * end of the transaction either way. docs/decisions.md §60.
 */
public final class ChangedOnlySagaStore implements SagaStore<Object> {

    private static final String LOADED = ChangedOnlySagaStore.class.getName() + ".loaded";

    private final SagaStore<Object> delegate;
    private final Serializer serializer;

    ChangedOnlySagaStore(SagaStore<Object> delegate, Serializer serializer) {
        this.delegate = delegate;
        this.serializer = serializer;
    }

    /** The durable store underneath, for the start-up wiring check. */
    public SagaStore<Object> delegate() {
        return delegate;
    }

    @Override
    public Set<String> findSagas(@Nonnull Class<?> sagaType, @Nonnull AssociationValue associationValue) {
        return delegate.findSagas(sagaType, associationValue);
    }

    @Override
    public <S> Entry<S> loadSaga(@Nonnull Class<S> sagaType, @Nonnull String sagaIdentifier) {
        Entry<S> entry = delegate.loadSaga(sagaType, sagaIdentifier);
        if (entry != null && CurrentUnitOfWork.isStarted()) {
            CurrentUnitOfWork.get().root().<Map<String, byte[]>>getOrComputeResource(LOADED, k -> new HashMap<>())
                    .put(sagaIdentifier, form(entry.saga()));
        }
        return entry;
    }

    @Override
    public void updateSaga(@Nonnull Class<?> sagaType, @Nonnull String sagaIdentifier, @Nonnull Object saga,
                           @Nonnull AssociationValues associationValues) {
        Map<String, byte[]> loaded = loaded();
        byte[] before = loaded == null ? null : loaded.remove(sagaIdentifier);
        if (before != null && associationValues.addedAssociations().isEmpty()
                && associationValues.removedAssociations().isEmpty() && Arrays.equals(before, form(saga))) {
            return; // stored as it is: writing it again changes nothing but costs a row version and its WAL
        }
        delegate.updateSaga(sagaType, sagaIdentifier, saga, associationValues);
    }

    @Override
    public void insertSaga(@Nonnull Class<?> sagaType, @Nonnull String sagaIdentifier, @Nonnull Object saga,
                           @Nonnull Set<AssociationValue> associationValues) {
        delegate.insertSaga(sagaType, sagaIdentifier, saga, associationValues);
    }

    @Override
    public void deleteSaga(@Nonnull Class<?> sagaType, @Nonnull String sagaIdentifier,
                           @Nonnull Set<AssociationValue> associationValues) {
        Map<String, byte[]> loaded = loaded();
        if (loaded != null) {
            loaded.remove(sagaIdentifier);
        }
        delegate.deleteSaga(sagaType, sagaIdentifier, associationValues);
    }

    private byte[] form(Object saga) {
        return serializer.serialize(saga, byte[].class).getData();
    }

    /** The forms loaded in this transaction (the root unit of work's), or null if none: then every update writes. */
    private static Map<String, byte[]> loaded() {
        return CurrentUnitOfWork.isStarted() ? CurrentUnitOfWork.get().root().getResource(LOADED) : null;
    }
}
