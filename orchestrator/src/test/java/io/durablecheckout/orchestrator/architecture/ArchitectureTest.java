package io.durablecheckout.orchestrator.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.axonframework.serialization.Revision;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.random.RandomGenerator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The boundaries of docs/architecture.md, as rules the build enforces. */
class ArchitectureTest {

    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.durablecheckout");
    }

    @Test
    void theApiDependsOnNothingOfOursAndNoFramework() {
        // events name their @Revision (docs/decisions.md, "Event evolution"): that one annotation of Axon's
        classes().that().resideInAPackage("io.durablecheckout.api..")
                .should().onlyDependOnClassesThat(JavaClass.Predicates.resideInAnyPackage("io.durablecheckout.api..",
                                "java..", "org.axonframework.modelling.command..", "com.fasterxml.jackson.annotation..")
                        .or(JavaClass.Predicates.equivalentTo(Revision.class)))
                .check(classes);
    }

    @Test
    void aggregatesAndSagasDoNotCallActivityCode() {
        noClasses().that().resideInAnyPackage("io.durablecheckout.orchestrator.checkout..",
                        "io.durablecheckout.orchestrator.saga..")
                .should().dependOnClassesThat().resideInAPackage("io.durablecheckout.activities..")
                .check(classes);
    }

    @Test
    void activitiesKnowOnlyThePublishedLanguage() {
        noClasses().that().resideInAPackage("io.durablecheckout.activities..")
                .should().dependOnClassesThat().resideInAPackage("io.durablecheckout.orchestrator..")
                .check(classes);
    }

    @Test
    void aggregatesAndSagasReadNoClockAndMakeNoRandomIds() {
        noClasses().that().resideInAnyPackage("io.durablecheckout.orchestrator.checkout..",
                        "io.durablecheckout.orchestrator.saga..")
                .should().callMethod(Instant.class, "now")
                .orShould().callMethod(LocalDateTime.class, "now")
                .orShould().callMethod(UUID.class, "randomUUID")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .orShould().dependOnClassesThat().areAssignableTo(Clock.class)
                .orShould().dependOnClassesThat().resideInAnyPackage("java.net..", "java.sql..", "javax.sql..",
                        "org.springframework.jdbc..")
                .check(classes);
    }

    /**
     * Replay re-runs the decision code and must get the same answers (docs/replay.md): no clock of any kind, no
     * randomness, nothing read from the environment, system properties or Spring's {@code Environment}. The policy
     * comes from the history, time from the input.
     */
    @Test
    void decisionCodeReadsNoClockNoRandomnessAndNoEnvironment() {
        DescribedPredicate<JavaMethodCall> clockRandomOrEnvironment = DescribedPredicate.describe(
                "a now(), nanoTime/currentTimeMillis, Math.random, UUID.randomUUID, System.getenv/getProperty",
                call -> {
                    String owner = call.getTargetOwner().getName();
                    String name = call.getName();
                    return name.equals("now")
                            || (owner.equals(System.class.getName()) && Set.of("nanoTime", "currentTimeMillis",
                            "getenv", "getProperty", "getProperties").contains(name))
                            || (owner.equals(Math.class.getName()) && name.equals("random"))
                            || (owner.equals(UUID.class.getName()) && name.equals("randomUUID"));
                });
        noClasses().that().resideInAnyPackage("io.durablecheckout.orchestrator.checkout..",
                        "io.durablecheckout.orchestrator.saga..")
                .should().callMethodWhere(clockRandomOrEnvironment)
                .orShould().dependOnClassesThat().areAssignableTo(Random.class) // SecureRandom, ThreadLocalRandom
                .orShould().dependOnClassesThat().areAssignableTo(SplittableRandom.class)
                .orShould().dependOnClassesThat().areAssignableTo(RandomGenerator.class)
                .orShould().dependOnClassesThat().resideInAPackage("org.springframework.core.env..")
                .check(classes);
    }

    @Test
    void theWebLayerSendsCommandsAndDoesNotTouchTheAggregate() {
        noClasses().that().resideInAPackage("io.durablecheckout.orchestrator.web..")
                .should().dependOnClassesThat().haveSimpleName("Checkout")
                .check(classes);
    }
}
