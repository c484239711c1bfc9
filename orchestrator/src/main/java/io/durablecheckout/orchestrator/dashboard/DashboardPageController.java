package io.durablecheckout.orchestrator.dashboard;

import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;

/** /dashboard is one page (static/dashboard/index.html) that routes by the URL's fragment. */
@Controller
public class DashboardPageController {

    @GetMapping({"/dashboard", "/dashboard/"})
    public String dashboard() {
        return "forward:/dashboard/index.html";
    }
}
