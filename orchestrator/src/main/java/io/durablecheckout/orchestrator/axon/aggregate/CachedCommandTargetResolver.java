package io.durablecheckout.orchestrator.axon.aggregate;

import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.common.ReflectionUtils;
import org.axonframework.common.annotation.AnnotationUtils;
import org.axonframework.modelling.command.CommandTargetResolver;
import org.axonframework.modelling.command.TargetAggregateIdentifier;
import org.axonframework.modelling.command.TargetAggregateVersion;
import org.axonframework.modelling.command.VersionedAggregateIdentifier;

import javax.annotation.Nonnull;
import java.lang.annotation.Annotation;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;

/**
 * Finds a command's target aggregate and expected version as Axon's {@code AnnotationCommandTargetResolver} does
 * (the field or method annotated {@link TargetAggregateIdentifier}, {@link TargetAggregateVersion}), but looks for
 * the annotations once per command class instead of on every command: Axon's resolver scanned every field and
 * method of the command, with its meta-annotation lookups, each time (5–11 % of the saga thread's samples;
 * decisions.md §60). {@code CachedCommandTargetResolverTest} checks it against Axon's resolver on every command of the API.
 */
public final class CachedCommandTargetResolver implements CommandTargetResolver {

    private final ClassValue<Target> targets = new ClassValue<>() {
        @Override
        protected Target computeValue(Class<?> type) {
            return new Target(find(type, TargetAggregateIdentifier.class), find(type, TargetAggregateVersion.class));
        }
    };

    @Nonnull
    @Override
    public VersionedAggregateIdentifier resolveTarget(@Nonnull CommandMessage<?> command) {
        Object payload = command.getPayload();
        Target target = targets.get(payload.getClass());
        Object identifier = target.identifier == null ? null : read(target.identifier, payload);
        if (identifier == null) {
            throw new IllegalArgumentException("Invalid command. It does not identify the target aggregate. "
                    + "Make sure at least one of the fields or methods in the [" + payload.getClass().getSimpleName()
                    + "] class contains the @TargetAggregateIdentifier annotation and that it returns a non-null value.");
        }
        Object version = target.version == null ? null : read(target.version, payload);
        return new VersionedAggregateIdentifier(identifier, asLong(version));
    }

    private record Target(Member identifier, Member version) {
    }

    /** Axon's order: the first annotated method of the class and its supertypes, then the first annotated field. */
    private static Member find(Class<?> type, Class<? extends Annotation> annotation) {
        for (Method method : ReflectionUtils.methodsOf(type)) {
            if (AnnotationUtils.isAnnotationPresent(method, annotation)) {
                return ReflectionUtils.ensureAccessible(method);
            }
        }
        for (Field field : ReflectionUtils.fieldsOf(type)) {
            if (AnnotationUtils.isAnnotationPresent(field, annotation)) {
                return ReflectionUtils.ensureAccessible(field);
            }
        }
        return null;
    }

    private static Object read(Member member, Object payload) {
        try {
            return member instanceof Field field ? field.get(payload) : ((Method) member).invoke(payload);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("Cannot read " + member.getName() + " of " + payload.getClass(), e);
        }
    }

    private static Long asLong(Object version) {
        if (version == null || version instanceof Long) {
            return (Long) version;
        }
        if (version instanceof Number number) {
            return number.longValue();
        }
        try {
            return Long.parseLong(version.toString());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("The value provided for the version is not a number.", e);
        }
    }
}
