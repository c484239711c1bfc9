package io.durablecheckout.orchestrator.dashboard;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.MediaType;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.util.HtmlUtils;

/** The operators' sign-in page: account (optional) and operator API key, posted with the CSRF token. */
@Controller
public class LoginPageController {

    @GetMapping(value = "/login", produces = MediaType.TEXT_HTML_VALUE)
    @ResponseBody
    public String login(HttpServletRequest request) {
        CsrfToken csrf = (CsrfToken) request.getAttribute(CsrfToken.class.getName());
        String message = request.getParameter("error") != null
                ? "<p class=\"error\" id=\"login-error\">Not signed in: that is not an operator API key "
                + "(or not the account's).</p>"
                : request.getParameter("logout") != null ? "<p class=\"muted\" id=\"logged-out\">Signed out.</p>" : "";
        return """
                <!doctype html>
                <html lang="en"><head><meta charset="utf-8"><title>Sign in · checkout dashboard</title>
                <link rel="stylesheet" href="/dashboard/dashboard.css"></head>
                <body><header><h1>Checkout orchestrator</h1></header>
                <main><div class="card narrow">
                <h2>Operator sign-in</h2>%s
                <form method="post" action="/login" class="filters stack">
                  <label>Account (optional)<input id="username" name="username" autocomplete="username"></label>
                  <label>Operator API key<input id="password" name="password" type="password"
                         autocomplete="current-password" required></label>
                  <input type="hidden" name="%s" value="%s">
                  <button type="submit" class="primary" id="sign-in">Sign in</button>
                </form></div></main></body></html>
                """.formatted(message, HtmlUtils.htmlEscape(csrf.getParameterName()), HtmlUtils.htmlEscape(csrf.getToken()));
    }
}
