#!/usr/bin/env python3
"""Writes site.json, the demo site's one data file, next to this script.

Deterministic (a fixed-seed generator, no clock), so running it twice gives
the same bytes. The secrets it writes are listed in `site_model::demo::SECRETS`;
a test checks each of them occurs in the demo data or source tree.

    python3 demo/generate.py
"""

import json
import pathlib
import random

rng = random.Random(20240501)
EN, DE = 0, 1
T0 = 1714521600  # 2024-05-01T00:00:00Z


# --- Pages ------------------------------------------------------------------

# (id, parent, title, slug, kind, hidden, deleted, nav_title, description)
PAGE_ROWS = [
    (1, None, "Northwind Bikes", "", "standard", False, False, "Home", "Bicycles built in Bremen since 1987."),
    (2, 1, "Products", "products", "standard", False, False, None, "City, mountain and electric bikes."),
    (3, 2, "City Bikes", "city-bikes", "standard", False, False, None, "Bikes for the daily commute."),
    (4, 3, "Commuter 500", "commuter-500", "standard", False, False, None, "Our best-selling city bike."),
    (5, 3, "Urban Classic", "urban-classic", "standard", False, False, None, "A steel frame with a timeless look."),
    (6, 2, "Mountain Bikes", "mountain-bikes", "standard", False, False, None, "Full suspension and hardtails."),
    (7, 6, "Trail Pro 29", "trail-pro-29", "standard", False, False, None, "Our 29-inch trail bike."),
    (8, 6, "Ridge 27.5", "ridge-27-5", "standard", True, False, None, "Coming this autumn."),
    (9, 2, "E-Bikes", "e-bikes", "standard", False, False, None, "Electric bikes for town and tour."),
    (10, 9, "E-Trekking 7", "e-trekking-7", "standard", False, False, None, "A touring e-bike with 120 km range."),
    (11, 9, "Cargo E", "cargo-e", "standard", False, True, None, "Discontinued cargo bike."),
    (12, 2, "Accessories", "accessories", "standard", False, False, None, "Helmets, locks and lights."),
    (13, 1, "News", "news", "standard", False, False, None, "What is new at Northwind Bikes."),
    (14, 13, "2024", "2024", "folder", False, False, None, None),
    (15, 14, "Spring collection launched", "spring-collection", "standard", False, False, None, "Our 2024 models are here."),
    (16, 14, "Factory open day", "factory-open-day", "standard", False, False, None, "Visit our workshop on 8 June."),
    (17, 13, "Press", "press", "standard", False, False, None, "Press releases and media kit."),
    (18, 13, "Archive", "archive", "standard", True, False, None, "Older news."),
    (19, 1, "Service", "service", "standard", False, False, None, "Repairs, warranty and dealers."),
    (20, 19, "Repairs", "repairs", "standard", False, False, None, "Book a repair at our workshop."),
    (21, 19, "Warranty", "warranty", "standard", False, False, None, "Five years on every frame."),
    (22, 19, "Dealer locator", "dealers", "standard", False, False, None, "Find a dealer near you."),
    (23, 19, "FAQ", "faq", "standard", False, False, "Questions", "Answers to common questions."),
    (24, 1, "About us", "about", "standard", False, False, None, "The people behind the bikes."),
    (25, 24, "Team", "team", "standard", False, False, None, "Meet our team."),
    (26, 24, "Careers", "careers", "standard", False, False, "Jobs", "Work with us."),
    (27, 24, "History", "history", "standard", False, True, None, "Old history page."),
    (28, 1, "Contact", "contact", "standard", False, False, None, "Write to us or call."),
    (29, 1, "Online shop", "shop", "link", False, False, "Shop", None),
    (30, 1, "Legal", "legal", "folder", False, False, None, None),
    (31, 30, "Imprint", "imprint", "standard", False, False, None, "Who runs this website."),
    (32, 30, "Privacy policy", "privacy", "standard", False, False, None, "How we handle your data."),
    (33, None, "Northwind Outlet", "", "standard", False, False, "Outlet", "Last season's bikes at outlet prices."),
    (34, 33, "Offers", "offers", "standard", False, False, None, "This week's offers."),
]

GERMAN = {
    1: ("Northwind Bikes", "", "Fahrräder aus Bremen seit 1987."),
    2: ("Produkte", "produkte", "Stadt-, Mountain- und E-Bikes."),
    3: ("Stadträder", "stadtraeder", "Räder für den Weg zur Arbeit."),
    9: ("E-Bikes", "e-bikes", "Elektroräder für Stadt und Tour."),
    13: ("Neuigkeiten", "neuigkeiten", "Was es Neues gibt."),
    19: ("Service", "service", "Reparatur, Garantie und Händler."),
    24: ("Über uns", "ueber-uns", "Die Menschen hinter den Rädern."),
    28: ("Kontakt", "kontakt", "Schreiben Sie uns oder rufen Sie an."),
}


def page(pid, parent, title, slug, kind, hidden, deleted, nav, desc, lang=EN, of=None, sorting=0):
    return {
        "id": pid, "parent": parent, "title": title, "nav_title": nav, "slug": slug,
        "description": desc, "kind": kind, "hidden": hidden, "deleted": deleted,
        "language": lang, "translation_of": of, "sorting": sorting,
    }


pages = []
for index, (pid, parent, title, slug, kind, hidden, deleted, nav, desc) in enumerate(PAGE_ROWS):
    pages.append(page(pid, parent, title, slug, kind, hidden, deleted, nav, desc, sorting=(index + 1) * 256))
by_id = {p["id"]: p for p in pages}
for pid, (title, slug, desc) in GERMAN.items():
    original = by_id[pid]
    pages.append(page(100 + pid, original["parent"], title, slug, original["kind"], False, False,
                      None, desc, lang=DE, of=pid, sorting=original["sorting"]))


# --- Content elements -------------------------------------------------------

MAIN, SIDEBAR, FOOTER = 0, 1, 2
elements = []


def element(page_id, column, ctype, header, body, hidden=False, deleted=False, lang=EN, of=None):
    elements.append({
        "id": len(elements) + 1, "page": page_id, "column": column,
        "sorting": 256 * (1 + sum(1 for e in elements if e["page"] == page_id and e["column"] == column)),
        "ctype": ctype, "header": header, "body": body, "hidden": hidden, "deleted": deleted,
        "language": lang, "translation_of": of,
    })
    return elements[-1]["id"]


# The root page: a hero, teasers, and the footer every page shows.
element(1, MAIN, "textpic", "Ride further", "<p>Northwind Bikes builds city, mountain and electric bikes in Bremen. Every frame is welded and checked by hand.</p>")
element(1, MAIN, "text", "New for 2024", "<p>The <a href=\"t3://page?uid=15\">spring collection</a> is in the shops: lighter frames, better brakes.</p>")
element(1, MAIN, "bullets", "Why Northwind", "<ul><li>Five-year frame warranty</li><li>Repairs in two days</li><li>Made in Germany</li></ul>")
element(1, SIDEBAR, "text", "Opening hours", "<p>Mon–Fri 9:00–18:00, Sat 10:00–14:00</p>")
element(1, FOOTER, "text", "Northwind Bikes GmbH", "<p>Hafenstraße 12, 28217 Bremen · +49 421 555 0100</p>")
element(1, FOOTER, "bullets", "Follow us", "<ul><li>Instagram</li><li>YouTube</li></ul>")
element(1, FOOTER, "html", "Newsletter form", "<form action=\"/newsletter\" method=\"post\"><input name=\"email\"></form>")

PRODUCT_SPECS = {
    4: ("Commuter 500", "aluminium", "8-speed hub", "14.2 kg", "899 EUR"),
    5: ("Urban Classic", "steel", "3-speed hub", "15.8 kg", "749 EUR"),
    7: ("Trail Pro 29", "carbon", "12-speed", "12.9 kg", "2,899 EUR"),
    8: ("Ridge 27.5", "aluminium", "11-speed", "13.5 kg", "1,999 EUR"),
    10: ("E-Trekking 7", "aluminium", "Bosch Performance Line", "24.1 kg", "3,499 EUR"),
    11: ("Cargo E", "steel", "Shimano Steps", "38.0 kg", "4,990 EUR"),
}
for pid, (name, frame, gears, weight, price) in PRODUCT_SPECS.items():
    element(pid, MAIN, "textpic", name, f"<p>The {name} has a {frame} frame and {gears} gearing.</p>")
    element(pid, MAIN, "table", "Specifications", f"Frame|{frame}\nGears|{gears}\nWeight|{weight}")
    element(pid, SIDEBAR, "text", "Price", f"<p>From {price}, at your dealer or in our shop.</p>")

for pid in (2, 3, 6, 9, 12):
    title = by_id[pid]["title"]
    element(pid, MAIN, "text", title, f"<p>{by_id[pid]['description']}</p>")
    element(pid, MAIN, "menu_subpages", f"All {title.lower()}", "")
    element(pid, SIDEBAR, "image", "", "")
element(12, MAIN, "text", "Helmets", "<p>Save 20% on all helmets until the end of May.</p>")
element(12, MAIN, "text", "Locks and lights", "<p>Folding locks, D-locks and StVZO-approved lights.</p>")

NEWS_PAGES = {
    13: "<p>News, events and press releases from Northwind Bikes.</p>",
    15: "<p>Lighter frames, hydraulic disc brakes on every model, and two new colours.</p>",
    16: "<p>Join us on 8 June from 10:00: workshop tours, test rides and coffee.</p>",
    17: "<p>Press releases, photos and our logo for download.</p>",
    18: "<p>News from earlier years.</p>",
}
for pid, body in NEWS_PAGES.items():
    element(pid, MAIN, "text", by_id[pid]["title"], body)
element(15, MAIN, "image", "The 2024 range", "")
element(16, MAIN, "textpic", "Test rides", "<p>Try the Trail Pro 29 on our test track.</p>")
element(16, SIDEBAR, "text", "Getting there", "<p>Tram 3 to Hafenstraße, then five minutes on foot.</p>")
element(17, MAIN, "uploads", "Media kit", "")
element(18, MAIN, "text", "2023: new workshop", "<p>We moved into the new workshop in March.</p>", hidden=True)

SERVICE = {
    19: ["<p>We look after your bike for as long as you ride it.</p>"],
    20: ["<p>Book a repair online or bring your bike in. Most repairs take two days.</p>",
         "<p>Prices: inspection 59 EUR, brake service 35 EUR, wheel truing 25 EUR.</p>"],
    21: ["<p>Five years on every frame, two years on parts.</p>",
         "<p>Keep your receipt and the frame number.</p>"],
    22: ["<p>Over 120 dealers in Germany, Austria and Switzerland.</p>"],
    23: ["<p><strong>How often should I service my bike?</strong> Once a year, or every 2,000 km.</p>",
         "<p><strong>Can I ride in the rain?</strong> Of course; dry the chain afterwards.</p>",
         "<p><strong>Do you ship abroad?</strong> To all EU countries.</p>"],
}
for pid, bodies in SERVICE.items():
    for number, body in enumerate(bodies):
        element(pid, MAIN, "text", by_id[pid]["title"] if number == 0 else "", body)
element(20, SIDEBAR, "text", "Workshop phone", "<p>+49 421 555 0120</p>")
element(22, MAIN, "html", "Dealer map", "<div id=\"dealer-map\" data-source=\"/api/dealers.json\"></div>")

element(24, MAIN, "text", "About us", "<p>Founded in 1987 by Karin and Jens Wolter in a garage in Bremen.</p>")
element(25, MAIN, "textpic", "Our team", "<p>Forty people design, weld, paint and assemble our bikes.</p>")
element(25, MAIN, "text", "Workshop", "<p>Our workshop team trains four apprentices a year.</p>")
element(26, MAIN, "text", "Careers", "<p>We are looking for a workshop technician and a web developer.</p>")
element(26, MAIN, "text", "Workshop technician (m/f/d)", "<p>Full time, Bremen. Apply to jobs@northwind-bikes.example.</p>")
element(26, MAIN, "text", "Old job ad", "<p>Summer intern 2022.</p>", deleted=True)
element(27, MAIN, "text", "Our history", "<p>From a garage to a factory.</p>")
element(28, MAIN, "text", "Contact", "<p>Write to hello@northwind-bikes.example or call +49 421 555 0100.</p>")
element(28, MAIN, "html", "Contact form", "<form action=\"/contact\" method=\"post\"></form>")
element(28, SIDEBAR, "text", "Address", "<p>Hafenstraße 12, 28217 Bremen</p>")
element(31, MAIN, "text", "Imprint", "<p>Northwind Bikes GmbH, Hafenstraße 12, 28217 Bremen. Managing director: Karin Wolter. Register court Bremen HRB 12345.</p>")
element(32, MAIN, "text", "Privacy policy", "<p>We store your address only to deliver your order.</p>")
element(32, MAIN, "text", "Cookies", "<p>We use one session cookie and no tracking without consent.</p>")
element(32, MAIN, "text", "Draft: analytics", "<p>To be reviewed by legal.</p>", hidden=True)
element(33, MAIN, "textpic", "Northwind Outlet", "<p>Last season's bikes, up to 40% off.</p>")
element(33, FOOTER, "text", "Outlet", "<p>Am Speicher 3, 28217 Bremen</p>")
element(34, MAIN, "text", "This week", "<p>Commuter 500 (2023) for 699 EUR.</p>")
element(34, MAIN, "text", "While stocks last", "<p>No reservations.</p>")

# German translations of some elements on translated pages.
GERMAN_ELEMENTS = {
    "Ride further": ("Weiter fahren", "<p>Northwind Bikes baut Stadt-, Mountain- und E-Bikes in Bremen.</p>"),
    "New for 2024": ("Neu für 2024", "<p>Die Frühjahrskollektion ist da.</p>"),
    "Opening hours": ("Öffnungszeiten", "<p>Mo–Fr 9:00–18:00, Sa 10:00–14:00</p>"),
    "Northwind Bikes GmbH": ("Northwind Bikes GmbH", "<p>Hafenstraße 12, 28217 Bremen</p>"),
    "Products": ("Produkte", "<p>Stadt-, Mountain- und E-Bikes.</p>"),
    "City Bikes": ("Stadträder", "<p>Räder für den Weg zur Arbeit.</p>"),
    "E-Bikes": ("E-Bikes", "<p>Elektroräder für Stadt und Tour.</p>"),
    "News": ("Neuigkeiten", "<p>Neuigkeiten und Termine.</p>"),
    "Service": ("Service", "<p>Wir kümmern uns um Ihr Rad.</p>"),
    "About us": ("Über uns", "<p>Gegründet 1987 in Bremen.</p>"),
    "Contact": ("Kontakt", "<p>Schreiben Sie an hello@northwind-bikes.example.</p>"),
    "Address": ("Adresse", "<p>Hafenstraße 12, 28217 Bremen</p>"),
}
for original in list(elements):
    if original["page"] in GERMAN and original["header"] in GERMAN_ELEMENTS and original["language"] == EN:
        header, body = GERMAN_ELEMENTS[original["header"]]
        element(original["page"], original["column"], original["ctype"], header, body, lang=DE, of=original["id"])

# Fill to exactly 100 with sidebar teasers on the product pages.
teasers = [4, 5, 7, 10, 3, 6, 9, 20, 21, 25, 15, 16, 12, 23]
while len(elements) < 100:
    pid = teasers[(len(elements)) % len(teasers)]
    element(pid, SIDEBAR, "text", "Test ride", "<p>Book a free test ride at your nearest dealer.</p>")
assert len(elements) == 100, len(elements)


# --- Tables, records and history --------------------------------------------

def field(name, kind, credential=False, table=None):
    kind_value = {"type": kind} if table is None else {"type": "relation", "table": table}
    return {"name": name, "kind": kind_value, "credential": credential}


tables = [
    {"name": "news", "title": "News", "sensitive": False,
     "search_fields": ["title", "teaser", "body"],
     "fields": [field("title", "string"), field("teaser", "string"), field("body", "string"),
                field("author", None, table="users"), field("published", "datetime"),
                field("image", None, table="files"), field("hidden", "bool"), field("deleted", "bool")]},
    {"name": "products", "title": "Products", "sensitive": False,
     "search_fields": ["sku", "name", "description"],
     "fields": [field("sku", "string"), field("name", "string"), field("category", "string"),
                field("description", "string"), field("price_cents", "int"), field("stock", "int"),
                field("image", None, table="files"), field("discontinued", "bool"), field("deleted", "bool")]},
    {"name": "api_clients", "title": "API clients", "sensitive": True,
     "search_fields": ["name", "contact_email"],
     "fields": [field("name", "string"), field("contact_email", "string"), field("client_id", "string"),
                field("client_secret", "string", credential=True), field("scopes", "string"),
                field("active", "bool")]},
]

NEWS = [
    ("Spring collection launched", "Our 2024 models are here.", "Lighter frames and hydraulic disc brakes on every model.", 4, 3),
    ("Factory open day on 8 June", "Workshop tours and test rides.", "Join us from 10:00 for tours, test rides and coffee.", 4, 5),
    ("Save 20% on all helmets", "Until the end of May.", "Every helmet in the shop is 20% off until 31 May.", 4, 9),
    ("E-Trekking 7 wins test", "Best touring e-bike of the year.", "The magazine praised its range and its brakes.", 4, 12),
    ("New dealer in Vienna", "Our first dealer in Austria.", "Radhaus Wien now sells the full range.", 5, 20),
    ("Recall: Cargo E brake lever", "Please check your brake lever.", "A batch of brake levers may crack; dealers replace them free.", 1, 25),
    ("Trail Pro 29 in stock again", "Sizes M and L available.", "The e_bike and trail ranges are restocked.", 4, 30),
    ("Draft: autumn preview", "Not yet published.", "The Ridge 27.5 arrives in September.", 4, 40),
]
records = []
for number, (title, teaser, body, author, day) in enumerate(NEWS, start=1):
    records.append({"table": "news", "id": number, "values": {
        "title": title, "teaser": teaser, "body": body, "author": author,
        "published": None if title.startswith("Draft") else T0 + day * 86400,
        "image": None, "hidden": title.startswith("Draft"), "deleted": False}})

PRODUCTS = [
    ("NWB-C500", "Commuter 500", "city", "Aluminium city bike with an 8-speed hub.", 89900, 14),
    ("NWB-UC", "Urban Classic", "city", "Steel frame, 3-speed hub, leather saddle.", 74900, 6),
    ("NWB-TP29", "Trail Pro 29", "mountain", "Carbon trail bike, 140 mm travel.", 289900, 3),
    ("NWB-R275", "Ridge 27.5", "mountain", "Aluminium hardtail, coming in autumn.", 199900, 0),
    ("NWB-ET7", "E-Trekking 7", "e-bike", "Touring e-bike with 120 km range.", 349900, 8),
    ("NWB-CE", "Cargo E", "e-bike", "Cargo e-bike for two children.", 499000, 0),
    ("NWB-H1", "Aero helmet", "accessories", "Light helmet with MIPS, 100% recyclable packaging.", 8900, 40),
    ("NWB-L2", "Folding lock", "accessories", "Folding lock, security level 10.", 6900, 25),
    ("NWB-LT", "Light set", "accessories", "StVZO-approved front and rear lights.", 4900, 60),
    ("NWB-P_X", "Pannier XL", "accessories", "Waterproof pannier, 25 litres.", 7900, 12),
]
for number, (sku, name, category, description, price, stock) in enumerate(PRODUCTS, start=1):
    records.append({"table": "products", "id": number, "values": {
        "sku": sku, "name": name, "category": category, "description": description,
        "price_cents": price, "stock": stock, "image": None,
        "discontinued": sku == "NWB-CE", "deleted": False}})

API_CLIENTS = [
    ("ERP sync", "it@northwind-bikes.example", "erp-sync", "DEMO-SECRET-apiclient-erp-5d2f", "products:read products:write", True),
    ("Online shop", "shop@northwind-bikes.example", "shop-frontend", "DEMO-SECRET-apiclient-shop-a71c", "products:read news:read", True),
    ("Legacy dealer feed", "dealers@northwind-bikes.example", "dealer-feed", "DEMO-SECRET-apiclient-legacy-0b9e", "products:read", False),
]
for number, (name, email, client_id, secret, scopes, active) in enumerate(API_CLIENTS, start=1):
    records.append({"table": "api_clients", "id": number, "values": {
        "name": name, "contact_email": email, "client_id": client_id,
        "client_secret": secret, "scopes": scopes, "active": active}})

history = []


def log_change(table, record_id, at, actor, action, changes, proposed_by=None, approved_by=None):
    history.append({"table": table, "record_id": record_id, "at": at, "actor": actor, "action": action,
                    "changes": [{"field": f, "old": o, "new": n} for f, o, n in changes],
                    "proposed_by": proposed_by, "approved_by": approved_by})


for record in records:
    created = T0 - 30 * 86400 + record["id"] * 3600 + {"news": 0, "products": 600, "api_clients": 1200}[record["table"]]
    actor = {"news": "nils", "products": "petra", "api_clients": "admin"}[record["table"]]
    changes = [(name, None, value) for name, value in record["values"].items()
               if record["table"] != "api_clients" or name != "client_secret"]
    log_change(record["table"], record["id"], created, actor, "created", changes)
log_change("news", 3, T0 + 9 * 86400, "nils", "updated", [("title", "Save 15% on all helmets", "Save 20% on all helmets")])
log_change("news", 3, T0 + 10 * 86400, "nils", "updated", [("teaser", "Until mid-May.", "Until the end of May.")])
log_change("news", 6, T0 + 26 * 86400, "admin", "updated", [("hidden", True, False)],
           proposed_by="agent run run-17 for nils", approved_by="admin")
log_change("products", 1, T0 + 2 * 86400, "petra", "updated", [("stock", 20, 14)])
log_change("products", 1, T0 + 5 * 86400, "petra", "updated", [("price_cents", 94900, 89900)])
log_change("products", 6, T0 + 15 * 86400, "ops", "updated", [("discontinued", False, True)])
log_change("products", 10, T0 + 20 * 86400, "petra", "updated", [("description", "Waterproof pannier.", "Waterproof pannier, 25 litres.")],
           proposed_by="agent run run-23 for petra", approved_by="ops")
log_change("api_clients", 3, T0 + 12 * 86400, "admin", "updated", [("active", True, False)])
log_change("pages", 11, T0 + 15 * 86400, "ops", "deleted", [("deleted", False, True)])
log_change("pages", 8, T0 + 16 * 86400, "petra", "updated", [("hidden", False, True)])
log_change("content", 1, T0 + 1 * 86400, "clara", "updated", [("header", "Ride more", "Ride further")])
log_change("pages", 15, T0 + 3 * 86400, "nils", "moved", [("parent", 13, 14), ("sorting", 512, 3840)])


# --- Files and references ---------------------------------------------------

storages = [{"id": 1, "name": "fileadmin"}, {"id": 2, "name": "media"}]
FILES = [
    (1, "images/home/hero-ride-further.jpg", "image/jpeg", "Ride further", {EN: "A rider on the Weser cycle path at sunset", DE: "Eine Radlerin am Weserradweg bei Sonnenuntergang"}),
    (1, "images/products/commuter-500.jpg", "image/jpeg", "Commuter 500", {EN: "The Commuter 500 in slate grey"}),
    (1, "images/products/urban-classic.jpg", "image/jpeg", "Urban Classic", {EN: "The Urban Classic with a brown leather saddle"}),
    (1, "images/products/trail-pro-29.jpg", "image/jpeg", "Trail Pro 29", {}),
    (1, "images/products/e-trekking-7.jpg", "image/jpeg", "E-Trekking 7", {EN: "The E-Trekking 7 with panniers"}),
    (1, "images/products/cargo-e.jpg", "image/jpeg", None, {}),
    (1, "images/team/team-2024.jpg", "image/jpeg", "Our team", {EN: "Forty people in front of the factory", DE: "Vierzig Menschen vor der Fabrik"}),
    (1, "images/team/workshop.jpg", "image/jpeg", "Workshop", {}),
    (1, "images/news/open-day.jpg", "image/jpeg", "Open day", {EN: "Visitors in the workshop"}),
    (1, "images/news/range-2024.jpg", "image/jpeg", "The 2024 range", {}),
    (1, "documents/warranty-terms.pdf", "application/pdf", "Warranty terms", {}),
    (1, "documents/price-list-2024.pdf", "application/pdf", "Price list 2024", {}),
    (1, "documents/size_chart_100%.pdf", "application/pdf", "Size chart", {}),
    (2, "press/logo.svg", "image/svg+xml", "Northwind Bikes logo", {EN: "Northwind Bikes"}),
    (2, "press/press-kit-2024.zip", "application/zip", "Press kit 2024", {}),
    (2, "press/factory-aerial.jpg", "image/jpeg", "The factory from above", {}),
    (2, "videos/trail-pro-teaser.mp4", "video/mp4", "Trail Pro teaser", {}),
    (2, "videos/how-to-adjust-brakes.mp4", "video/mp4", "How to adjust your brakes", {}),
    (2, "outlet/offer-banner.png", "image/png", "Outlet offers", {EN: "Up to 40% off"}),
    (2, "outlet/commuter-500-2023.png", "image/png", None, {}),
]
MISSING = {"documents/price-list-2024.pdf", "press/press-kit-2024.zip"}
files = []
for number, (storage, path, mime, title, alternative) in enumerate(FILES, start=1):
    files.append({"id": number, "storage": storage, "path": path, "name": path.rsplit("/", 1)[-1],
                  "mime": mime, "size": rng.randrange(20_000, 9_000_000), "title": title,
                  "alternative": {str(k): v for k, v in alternative.items()}, "missing": path in MISSING})
file_by_path = {f["path"]: f["id"] for f in files}

references = []


def reference(path, table, record_id, field_name):
    references.append({"file": file_by_path[path], "table": table, "record_id": record_id, "field": field_name})


def first_element(page_id, ctype):
    return next(e["id"] for e in elements if e["page"] == page_id and e["ctype"] == ctype and e["language"] == EN)


reference("images/home/hero-ride-further.jpg", "content", first_element(1, "textpic"), "image")
for pid, path in ((4, "commuter-500"), (5, "urban-classic"), (7, "trail-pro-29"), (10, "e-trekking-7"), (11, "cargo-e")):
    reference(f"images/products/{path}.jpg", "content", first_element(pid, "textpic"), "image")
reference("images/team/team-2024.jpg", "content", first_element(25, "textpic"), "image")
reference("images/news/range-2024.jpg", "content", first_element(15, "image"), "image")
reference("images/news/open-day.jpg", "content", first_element(16, "textpic"), "image")
reference("press/press-kit-2024.zip", "content", first_element(17, "uploads"), "media")
reference("press/logo.svg", "content", first_element(17, "uploads"), "media")
reference("documents/price-list-2024.pdf", "content", first_element(12, "image"), "image")
reference("outlet/offer-banner.png", "content", first_element(33, "textpic"), "image")
for record_id, path in ((1, "images/news/range-2024.jpg"), (2, "images/news/open-day.jpg")):
    reference(path, "news", record_id, "image")
    next(r for r in records if r["table"] == "news" and r["id"] == record_id)["values"]["image"] = file_by_path[path]
for record_id, path in ((1, "images/products/commuter-500.jpg"), (3, "images/products/trail-pro-29.jpg"),
                        (5, "images/products/e-trekking-7.jpg")):
    reference(path, "products", record_id, "image")
    next(r for r in records if r["table"] == "products" and r["id"] == record_id)["values"]["image"] = file_by_path[path]


# --- Accounts ---------------------------------------------------------------

def grants(show=(), edit=(), read=(), write=(), storages_=()):
    return {"show_pages": list(show), "edit_pages": list(edit), "read_tables": list(read),
            "edit_tables": list(write), "storages": list(storages_)}


groups = [
    {"id": 1, "name": "Newsroom", "grants": grants([13], [13], ["news"], ["news"], [1, 2])},
    {"id": 2, "name": "Product team", "grants": grants([2], [2], ["products"], ["products"], [2])},
]


def user(uid, name, real_name, admin, group_ids, own, last_login, mfa):
    return {"id": uid, "name": name, "real_name": real_name, "email": f"{name}@northwind-bikes.example",
            "admin": admin, "disabled": False, "groups": group_ids, "grants": own,
            "last_login": last_login,
            "password_hash": f"$argon2id$v=19$m=65536,t=3,p=4$DEMOSECRETHASH{name}$c2VjcmV0LWRlbW8taGFzaC1{uid}",
            "mfa_secret": mfa}


users = [
    user(1, "admin", "Anna Berg", True, [], grants(), T0 + 28 * 86400, "DEMOSECRETMFAADMINQ7"),
    user(2, "ops", "Oskar Lind", True, [], grants(), T0 + 27 * 86400, "DEMOSECRETMFAOPSZ3K"),
    user(3, "petra", "Petra Meyer", False, [2], grants(), T0 + 29 * 86400, "DEMOSECRETMFAPETRA2"),
    user(4, "nils", "Nils Johansson", False, [1], grants(), T0 + 26 * 86400, None),
    user(5, "clara", "Clara Santos", False, [], grants([1], [19], ["news", "products"], [], [1]), None, None),
]


# --- Logs -------------------------------------------------------------------

LEVELS = ["error"] * 2 + ["warning"] * 3 + ["notice"] * 3 + ["info"] * 8 + ["debug"] * 4
ORDINARY = {
    "auth": ["User logged in", "User logged out", "Session expired"],
    "frontend": ["Page rendered", "Page not found: /bikes/old-model", "Redirect followed"],
    "mailer": ["Newsletter sent", "Contact form mail sent", "Mail queue flushed"],
    "scheduler": ["Task 'index search' finished", "Task 'clean caches' finished", "Task 'import stock' started"],
    "cache": ["Page cache cleared", "Cache warmup finished"],
    "payment": ["Payment authorised", "Payment captured", "Refund issued"],
}
SPECIAL = {
    17: ("warning", "auth", "Login failed for user 'petra'", 3,
         {"username": "petra", "password": "DEMO-SECRET-typed-password-hunter2", "reason": "wrong password"}),
    42: ("error", "payment", "Payment provider rejected request", None,
         {"request": {"method": "POST", "url": "https://api.payments.example/v1/charges",
                      "headers": {"Authorization": "Bearer DEMO-SECRET-bearer-9c8b7a", "Content-Type": "application/json"}},
          "status": 401}),
    99: ("notice", "auth", "Password reset requested", 5,
         {"email": "clara@northwind-bikes.example",
          "link": "https://www.northwind-bikes.example/reset?token=DEMO-SECRET-reset-token-f00d"}),
    150: ("error", "mailer", "SMTP authentication failed", None,
          {"server": "mail.northwind-bikes.example:587", "user": "web@northwind-bikes.example", "code": 535}),
}
logs = []
at = T0
for number in range(1, 201):
    at += rng.randrange(300, 12000)
    address = rng.choice([f"203.0.113.{rng.randrange(1, 255)}", f"198.51.100.{rng.randrange(1, 255)}",
                          f"2001:db8::{rng.randrange(1, 0xffff):x}", None])
    if number in SPECIAL:
        level, component, message, uid, payload = SPECIAL[number]
    else:
        component = rng.choice(sorted(ORDINARY))
        message = rng.choice(ORDINARY[component])
        level = rng.choice(LEVELS)
        uid = rng.choice([1, 2, 3, 4, 5, None, None]) if component in ("auth", "frontend") else None
        payload = {"duration_ms": rng.randrange(2, 900)}
        if component == "frontend":
            payload["path"] = rng.choice(["/", "/products", "/news/spring-collection", "/service/repairs", "/contact"])
    logs.append({"id": number, "at": at, "level": level, "component": component, "message": message,
                 "client_address": address, "user": uid, "payload": payload})


# --- Sites ------------------------------------------------------------------

english = {"id": EN, "code": "en", "title": "English"}
german = {"id": DE, "code": "de", "title": "Deutsch"}
sites = [
    {"identifier": "main", "base_url": "https://www.northwind-bikes.example/", "root_page": 1,
     "languages": [english, german],
     "settings": {
         "mail": {"transport": "smtp", "smtpServer": "mail.northwind-bikes.example:587",
                  "smtpUsername": "web@northwind-bikes.example", "smtpPassword": "DEMO-SECRET-smtp-7f3a9c2e1b",
                  "defaultFromAddress": "hello@northwind-bikes.example"},
         "payment": {"provider": "stripe", "currency": "EUR", "apiKey": "sk_live_51DemoNorthwindBikes0000aaaaBBBBcccc"},
         "database": {"url": "postgres://nwb_app:DEMO-SECRET-db-4e8b1d@db.internal:5432/northwind", "poolSize": 10},
         "cache": {"backend": "redis://:DEMO-SECRET-redis-55aa01@cache.internal:6379/0", "lifetime": 86400},
         "analytics": {"trackingId": "G-NWB2024DEMO", "anonymizeIp": True},
         "seo": {"titleSuffix": " | Northwind Bikes", "sitemap": True},
         "features": {"dealerMap": True, "newsletter": True, "maxUploadMb": 20},
     }},
    {"identifier": "outlet", "base_url": "https://outlet.northwind-bikes.example/", "root_page": 33,
     "languages": [english],
     "settings": {
         "mail": {"transport": "smtp", "smtpServer": "mail.northwind-bikes.example:587",
                  "smtpUsername": "outlet@northwind-bikes.example", "smtpPassword": "DEMO-SECRET-smtp-outlet-92c1d0"},
         "payment": {"provider": "stripe", "currency": "EUR", "apiKey": "sk_live_51DemoOutletStore1111ddddEEEEffff",
                     "webhooks": {"endpoint": "/payment/webhook", "secret": "whsec_DEMOa8f3k2l9m4n7p1q6"}},
         "analytics": {"trackingId": "G-NWBOUTLET", "anonymizeIp": True},
         "seo": {"titleSuffix": " | Northwind Outlet", "sitemap": False},
     }},
]

columns = [{"id": MAIN, "name": "Main"}, {"id": SIDEBAR, "name": "Sidebar"}, {"id": FOOTER, "name": "Footer"}]

data = {"columns": columns, "pages": pages, "elements": elements, "tables": tables, "records": records,
        "history": history, "storages": storages, "files": files, "references": references,
        "users": users, "groups": groups, "logs": logs, "sites": sites}
out = pathlib.Path(__file__).with_name("site.json")
out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
print(f"wrote {out}: {len(pages)} pages, {len(elements)} elements, {len(records)} records, "
      f"{len(files)} files, {len(users)} users, {len(logs)} logs")
