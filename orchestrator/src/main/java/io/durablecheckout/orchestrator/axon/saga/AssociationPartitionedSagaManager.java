package io.durablecheckout.orchestrator.axon.saga;

import org.axonframework.common.IdentifierFactory;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.Segment;
import org.axonframework.modelling.saga.AnnotatedSagaManager;
import org.axonframework.modelling.saga.AssociationValue;

import javax.annotation.Nonnull;

/**
 * Axon's annotated saga manager, with the segments partitioned by the event's association value instead of the
 * saga's id. Axon's own manager lets every segment handle every event: each looks the association up, loads what it
 * finds and keeps the sagas whose <em>id</em> falls in it, so N segments do the lookup N times (docs/scaling.md).
 * Here only the segment the association value falls in can handle the event ({@link #canHandle}), so another
 * segment does nothing for it; the segment that does owns every saga the value finds, whatever its id
 * ({@link #matchesSegment}). Axon already starts a saga only in the segment of its initial association value, so
 * starting and finding agree; a saga stored under any segment count, or before this manager, is found by the segment
 * of its association after a split or merge, never orphaned. Meant for sagas associated by one value per event (a
 * checkout's id); with several values an event goes to the segment of any of them.
 */
public final class AssociationPartitionedSagaManager<T> extends AnnotatedSagaManager<T> {

    public AssociationPartitionedSagaManager(AnnotatedSagaManager.Builder<T> builder) {
        super(builder);
    }

    @Override
    public boolean canHandle(@Nonnull EventMessage<?> event, @Nonnull Segment segment) {
        if (!super.canHandle(event, segment)) {
            return false;
        }
        for (AssociationValue value : extractAssociationValues(event)) {
            if (segment.matches(value)) { // the same test Axon applies before starting a saga
                return true;
            }
        }
        return false;
    }

    /** Every saga an association of this segment finds is this segment's: the value routed the event here. */
    @Override
    protected boolean matchesSegment(Segment segment, String sagaId) {
        return true;
    }

    /** Any id: the segment is chosen by the association value, not the id (Axon drew ids until one fell in it). */
    @Override
    protected String createSagaIdentifier(Segment segment) {
        return IdentifierFactory.getInstance().generateIdentifier();
    }
}
