"""The names and words of site chrome: class/id names of documentation generators and blog
platforms, generic boilerplate names, and the texts of links and blocks that are page furniture.

Used by :mod:`hwqa.extract.boilerplate`. Names are matched lower-case with "_" read as "-".
"""

from __future__ import annotations

import re

# Class/id names that are chrome on the generator that uses them; matched as a whole class, id
# or data-testid (lower-case, "_" read as "-").
SURE_NAMES = frozenset(
    {
        # mdBook (0.4 ids, and 0.5's "mdbook-" prefixed ones)
        "menu-bar", "mdbook-menu-bar", "menu-bar-hover-placeholder", "mdbook-menu-bar-hover-placeholder",
        "menu-title", "left-buttons", "right-buttons", "theme-list", "mdbook-theme-list", "theme-popup",
        "search-wrapper", "mdbook-search-wrapper", "searchbar-outer", "searchresults-outer",
        "nav-chapters", "mobile-nav-chapters", "nav-wrapper", "nav-wide-wrapper", "mdbook-help-container",
        "mdbook-help-popup", "sidebar-resize-handle", "mdbook-sidebar-resize-handle", "icon-button",
        # Sphinx (basic, alabaster, classic, Read the Docs theme, furo, pydata, the Python docs)
        "sphinxsidebar", "sphinxsidebarwrapper", "headerlink", "searchbox", "this-page-menu",
        "rst-versions", "rst-footer-buttons", "rst-breadcrumbs-buttons", "wy-nav-side", "wy-nav-top",
        "wy-breadcrumbs", "wy-breadcrumbs-aside", "wy-side-nav-search", "wy-menu", "wy-menu-vertical",
        "mobile-header", "sidebar-drawer", "toc-drawer", "related-pages", "bottom-of-page", "back-to-top",
        "content-icon-container", "edit-this-page", "view-this-page", "theme-toggle-container", "theme-toggle",
        "bd-header", "bd-header-announcement", "bd-footer", "bd-footer-article", "bd-footer-content",
        "prev-next-area", "prev-next-footer", "header-article-items", "bd-toc", "bd-sidebar-primary",
        "bd-sidebar-secondary", "pst-async-banner-revealer", "mobile-nav", "inline-search",
        "language-switcher-placeholder", "version-switcher-placeholder", "viewcode-link", "copybtn",
        "readthedocs-flyout",
        # MkDocs Material (and plain MkDocs)
        "md-header", "md-tabs", "md-sidebar", "md-search", "md-footer", "md-footer-meta", "md-source",
        "md-content--button", "md-top", "md-dialog", "md-skip", "md-overlay", "md-version", "md-source-file",
        "md-announce", "md-banner", "md-consent", "md-clipboard", "md-nav", "md-header--source",
        "navbar-header", "bs-sidebar", "rst-footer",
        # Docusaurus
        "navbar--fixed-top", "navbar-sidebar", "theme-doc-sidebar-container", "pagination-nav",
        "theme-edit-this-page", "theme-last-updated", "theme-doc-toc-desktop", "theme-doc-toc-mobile",
        "theme-doc-breadcrumbs", "theme-back-to-top-button", "theme-announcement-bar", "theme-doc-footer",
        "theme-doc-version-banner", "theme-doc-version-badge", "hash-link", "docsearch", "docsearch-button",
        "table-of-contents",
        # GitBook (legacy gitbook-cli and gitbook.com)
        "book-summary", "book-header", "navigation-prev", "navigation-next", "book-search-input",
        "book-search-results", "gitbook-link", "site-header", "page-footer",
        # Hugo themes (docsy, PaperMod, ananke, hugo-book)
        "td-navbar", "td-sidebar", "td-sidebar-toc", "td-sidebar-nav", "td-page-meta", "td-page-meta--lastmod",
        "td-toc", "td-breadcrumbs", "td-footer", "td-search", "paginav", "post-nav", "top-link",
        "logo-switches", "share-buttons", "post-tags", "toc", "book-menu", "book-toc", "book-footer",
        # Medium
        "speechify-ignore", "pw-multi-vote-icon", "pw-multi-vote-count", "pw-responses-count", "metabar",
        # WordPress (classic and block themes, Jetpack)
        "site-branding", "site-footer", "site-info", "main-navigation", "post-navigation", "posts-navigation",
        "nav-links", "comments-area", "comment-list", "commentlist", "comment-respond",
        "widget-area", "sharedaddy", "sd-sharing",
        "sd-sharing-enabled", "jp-relatedposts", "entry-footer", "edit-link", "post-edit-link",
        "cookie-law-info-bar", "wp-block-navigation", "wp-block-post-navigation-link", "wp-block-comments",
        "wp-block-post-comments-form", "wp-block-search", "wp-block-query-pagination", "disqus-thread",
        # VitePress, just-the-docs (Jekyll), Ghost, Substack
        "vpnav", "vpnavbar", "vplocalnav", "vpsidebar", "vpdocaside", "vpdocasideoutline", "vpdocfooter", "vpfooter",
        "vpskiplink", "vplastupdated", "side-bar", "main-header", "site-nav", "gh-head", "gh-foot", "gh-navigation",
        "subscription-widget-wrap", "subscribe-widget", "post-ufi",
    }
)  # fmt: skip
# Sure chrome when anywhere inside a class/id ("tocCollapsible", "version-switcher__button").
SURE_SUBSTRINGS = (
    "skiplink", "skip-link", "skiptocontent", "skip-to-content", "breadcrumb", "table-of-contents",
    "tableofcontents", "edit-this-page", "editthispage", "version-switch", "versionswitch", "version-select",
    "version-picker", "theme-switch", "theme-picker", "theme-toggle", "colormodetoggle", "color-mode-toggle",
    "back-to-top", "backtotop", "announcement", "lastmod", "last-updated", "lastupdated", "header-anchor",
    "heading-anchor", "anchorjs", "docsearch", "searchbar", "search-bar", "searchbox", "search-box",
    "searchresults", "mdbook-help", "keyboard-shortcuts", "shortcuts-help", "feedback--",
)  # fmt: skip
# Ids (not classes: "secondary" is also a text style) that are chrome on blog platforms.
SURE_IDS = frozenset({"secondary", "colophon", "masthead", "respond", "comments", "disqus-thread", "toc"})
# Generic boilerplate anywhere inside a class or id ("newsletterBox", "site-sidebar").
BOILER_SUBSTRINGS = (
    "cookie", "consent", "gdpr", "newsletter", "subscribe", "advert", "sponsor", "paywall", "popup", "social",
    "signup", "sign-up", "sidebar", "pagination", "screen-reader", "sr-only", "visually-hidden", "visuallyhidden",
)  # fmt: skip
# Whole words of a class or id that surely mean boilerplate ("related-posts", "comments").
BOILER_TOKENS = frozenset(
    {
        "related", "comments", "comment", "footer", "masthead", "navbar", "nav", "toolbar", "disqus", "outbrain",
        "taboola", "sharer", "breadcrumbs", "toc", "search", "navigation", "menubar", "topbar", "pager",
        "dialog", "drawer", "lightbox",
    }
)  # fmt: skip
# Whole words that often mean boilerplate but also appear on content ("share-enabled",
# "hero-banner"): such an element goes only if it is mostly links, or short prose without a
# heading.
WEAK_TOKENS = frozenset({"banner", "menu", "share", "sharing", "ad", "ads", "promo", "modal", "overlay", "widget", "tags"})

# Links that are chrome wherever they are.
PERMALINK_TEXT = frozenset(
    {
        "",
        "¶",
        "#",
        "§",
        "🔗",
        "∞",
        "link",
        "permalink",
        "permanent link",
        "anchor",
        "link to this heading",
        "direct link to heading",
        "copy link",
    }
)
CHROME_LINK_RE = re.compile(
    r"^(?:edit|edit (?:this|the) (?:page|doc|file)(?: on \w+)?|edit page|edit on (?:github|gitlab|bitbucket|codeberg)"
    r"|suggest (?:an )?edits?|suggest changes|improve this (?:page|doc|document)|view (?:page )?source"
    r"|show source|view source of this page|page source|report (?:an? )?(?:issue|bug|problem)(?: with this page)?"
    r"|create (?:a |an )?(?:documentation |project )?issue|create child page|print (?:entire section|this (?:page|book))"
    r"|skip to (?:the )?(?:main )?content|skip to navigation|back to top|go to top|scroll (?:back )?to top"
    r"|view on github|open in github)$",
    re.I,
)
# Short blocks that are page furniture whatever their markup ("Last updated 3 months ago").
CHROME_TEXT_RE = re.compile(
    r"^(?:last (?:updated|modified|edited)\b.{0,60}|on this page|in this article|table of contents|contents"
    r"|was this (?:page |article )?helpful\??|share this(?: article| post)?:?)$",
    re.I,
)
# The first words of a previous/next link ("Previous", "« Prev", "Next page →", "Previous:").
PAGER_RE = re.compile(
    r"^(?:[«‹←<⟵]\s*)?(?:previous|prev|next|older|newer)(?:\s+(?:page|post|article|chapter|topic|entry))?"
    r"\s*[:»›→>⟶]*$",
    re.I,
)
