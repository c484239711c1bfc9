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

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noMembers;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The boundaries of docs/architecture.md ("Packages and their directions"), as rules the build enforces. Production
 * classes only: tests may reach anything.
 */
class ArchitectureTest {

    private static final String ORCHESTRATOR = "io.durablecheckout.orchestrator";
    private static final String ACTIVITIES = "io.durablecheckout.activities";

    private static String pkg(String name) {
        return ORCHESTRATOR + "." + name + "..";
    }

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
     * Sagas are loaded with no resource injection (config.SagaResourceConfiguration): an injected member would stay
     * null. They take beans as handler parameters instead.
     */
    @Test
    void sagasHaveNoInjectedMembers() {
        noMembers().that().areDeclaredInClassesThat().areAnnotatedWith(org.axonframework.spring.stereotype.Saga.class)
                .should().beAnnotatedWith("org.springframework.beans.factory.annotation.Autowired")
                .orShould().beAnnotatedWith("org.springframework.beans.factory.annotation.Value")
                .orShould().beAnnotatedWith("jakarta.inject.Inject")
                .orShould().beAnnotatedWith("jakarta.annotation.Resource")
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

    /**
     * The orchestrator reaches the activity services only through the wiring: {@code config} (the ports it hands the
     * rest, e.g. the dashboard's provider lookup) and {@code faults} (the fault matrix's seams into the workers).
     */
    @Test
    void theOrchestratorReachesTheActivitiesOnlyThroughTheWiring() {
        noClasses().that().resideInAPackage(ORCHESTRATOR + "..")
                .and().resideOutsideOfPackages(pkg("config"), pkg("faults"))
                .should().dependOnClassesThat().resideInAPackage(ACTIVITIES + "..")
                .check(classes);
    }

    @Test
    void theWebLayerSendsCommandsAndDoesNotTouchTheAggregate() {
        noClasses().that().resideInAPackage("io.durablecheckout.orchestrator.web..")
                .should().dependOnClassesThat().haveSimpleName("Checkout")
                .check(classes);
    }

    // ---- packages and their directions ------------------------------------------------------------------------

    @Test
    void theOrchestratorsPackagesHaveNoCycles() {
        slices().matching(ORCHESTRATOR + ".(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theActivityServicesHaveNoCycles() {
        slices().matching(ACTIVITIES + ".(*)..").should().beFreeOfCycles().check(classes);
    }

    /** Fault injection plugs into the product from outside (interceptors, a filter, the activities' seams). */
    @Test
    void nothingDependsOnFaultInjection() {
        noClasses().that().resideOutsideOfPackage(pkg("faults"))
                .should().dependOnClassesThat().resideInAPackage(pkg("faults"))
                .check(classes);
    }

    /**
     * The payment provider simulator belongs to the embedded demo: only its own package and the activities' wiring
     * that switches it on ({@code checkout.simulator.enabled}) name it. The production webhook controller verifies
     * signatures with the payments service's {@code WebhookSignatures}, which the simulator uses too.
     */
    @Test
    void productionCodeDoesNotUseTheSimulator() {
        noClasses().that().resideOutsideOfPackage(ACTIVITIES + ".simulator..")
                .and().doNotHaveFullyQualifiedName(ACTIVITIES + ".ActivitiesConfiguration")
                .should().dependOnClassesThat().resideInAPackage(ACTIVITIES + ".simulator..")
                .check(classes);
    }

    /**
     * The Axon and db-scheduler extensions are infrastructure a reader can take in alone (and reuse): they import
     * nothing of the product, not even the published language; what they need arrives as parameters.
     */
    @Test
    void theAxonExtensionsKnowNothingOfTheProduct() {
        classes().that().resideInAPackage(pkg("axon"))
                .should().onlyDependOnClassesThat(resideInAPackage(pkg("axon"))
                        .or(resideOutsideOfPackage("io.durablecheckout..")))
                .check(classes);
    }

    /** {@code config} wires the application: only the entry points depend on it (the benchmarks are their own module). */
    @Test
    void onlyTheEntryPointsDependOnTheWiring() {
        classes().that().resideInAPackage(pkg("config"))
                .should().onlyHaveDependentClassesThat(resideInAnyPackage(pkg("config"), ORCHESTRATOR))
                .check(classes);
    }

    /**
     * Problem details, request limits and the events' JSON shape sit at the bottom: they know no package of ours (the
     * upcasters in serialization know the published language they read: the api module's events).
     */
    @Test
    void httpPlumbingAndSerializationDependOnNothingOfOurs() {
        classes().that().resideInAPackage(pkg("http"))
                .should().onlyDependOnClassesThat(resideInAPackage(pkg("http"))
                        .or(resideOutsideOfPackage("io.durablecheckout..")))
                .check(classes);
        classes().that().resideInAPackage(pkg("serialization"))
                .should().onlyDependOnClassesThat(resideInAnyPackage(pkg("serialization"), "io.durablecheckout.api..")
                        .or(resideOutsideOfPackage("io.durablecheckout..")))
                .check(classes);
    }


    /** The HTTP layer (API and dashboard) is on top: the parts below it never call up into it. */
    @Test
    void nothingBelowTheHttpLayerDependsOnIt() {
        noClasses().that().resideInAnyPackage(pkg("checkout"), pkg("saga"), pkg("readmodel"), pkg("replay"),
                        pkg("deadletter"), pkg("tenancy"), pkg("admission"), pkg("cluster"), pkg("http"),
                        pkg("serialization"), pkg("faults"), pkg("service"))
                .should().dependOnClassesThat().resideInAnyPackage(pkg("web"), pkg("dashboard"))
                .check(classes);
        noClasses().that().resideInAPackage(pkg("web"))
                .should().dependOnClassesThat().resideInAPackage(pkg("dashboard"))
                .check(classes);
    }

    /** The aggregate and the saga are the core: they know the published language and each other, nothing above. */
    @Test
    void theCoreDependsOnNothingAboveIt() {
        noClasses().that().resideInAnyPackage(pkg("checkout"), pkg("saga"))
                .should().dependOnClassesThat().resideInAnyPackage(pkg("web"), pkg("dashboard"), pkg("tenancy"),
                        pkg("admission"), pkg("readmodel"), pkg("replay"), pkg("deadletter"), pkg("config"),
                        pkg("faults"), pkg("cluster"), pkg("http"), pkg("serialization"), pkg("service"))
                .check(classes);
        noClasses().that().resideInAPackage(pkg("checkout"))
                .should().dependOnClassesThat().resideInAPackage(pkg("saga"))
                .check(classes);
    }

    /**
     * The activity services do not call each other (they meet through the event store); their shared kernel (the
     * package's root: fenced operations, leases, metrics) knows none of them, only the two configurations do.
     */
    @Test
    void activityServicesAreIndependent() {
        String[] services = {"inventory", "payments", "receipts"};
        for (String service : services) {
            for (String other : services) {
                if (!other.equals(service)) {
                    noClasses().that().resideInAPackage(ACTIVITIES + "." + service + "..")
                            .should().dependOnClassesThat().resideInAPackage(ACTIVITIES + "." + other + "..")
                            .check(classes);
                }
            }
        }
        noClasses().that().resideInAPackage(ACTIVITIES)
                .and().doNotHaveFullyQualifiedName(ACTIVITIES + ".ActivitiesConfiguration")
                .and().doNotHaveFullyQualifiedName(ACTIVITIES + ".ActivitiesAutoConfiguration")
                .should().dependOnClassesThat().resideInAnyPackage(ACTIVITIES + ".inventory..",
                        ACTIVITIES + ".payments..", ACTIVITIES + ".receipts..", ACTIVITIES + ".simulator..")
                .check(classes);
    }
}
