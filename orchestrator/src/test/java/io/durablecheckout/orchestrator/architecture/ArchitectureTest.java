package io.durablecheckout.orchestrator.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.UUID;

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
        classes().that().resideInAPackage("io.durablecheckout.api..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.durablecheckout.api..", "java..",
                        "org.axonframework.modelling.command..", "com.fasterxml.jackson.annotation..")
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

    @Test
    void theWebLayerSendsCommandsAndDoesNotTouchTheAggregate() {
        noClasses().that().resideInAPackage("io.durablecheckout.orchestrator.web..")
                .should().dependOnClassesThat().haveSimpleName("Checkout")
                .check(classes);
    }
}
