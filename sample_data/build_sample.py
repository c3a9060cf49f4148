#!/usr/bin/env python3
"""Build the spamnb sample mail set (English + Simplified/Traditional Chinese).

Every message below is invented.  Names, companies, addresses and numbers are
made up; all domains are reserved ones (example.com/.net/.org, *.example,
*.test, *.invalid) and all IP addresses come from the documentation ranges
(192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32).  Spam and ham
come through the same relays and mail programs (see "Headers" below).

Run from the repository root:

    python3 sample_data/build_sample.py

The output is fully deterministic: fixed dates, fixed Message-IDs, fixed MIME
boundaries and fixed Maildir file names, so running the script again rewrites
exactly the same bytes.  Standard library only (Python 3.11+).

Layout written under sample_data/:

    mail/spam/*.eml, mail/ham/*.eml     one message per file
    mbox/spam.mbox, mbox/ham.mbox       mboxo ("From " lines escaped as ">From ")
    maildir/{spam,ham}/{cur,new,tmp}    Maildir, tmp/ only holds a .keep file
    MANIFEST.tsv                        one row per message (see README.md)
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import mailbox
import re
import shutil
import struct
import textwrap
import time
import zipfile
import zlib
from dataclasses import dataclass, field
from email import encoders
from email.charset import BASE64, QP, Charset
from email.generator import BytesGenerator
from email.header import Header
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import formataddr, getaddresses
from pathlib import Path

HERE = Path(__file__).resolve().parent

# ---------------------------------------------------------------------------
# Small helpers for the message data
# ---------------------------------------------------------------------------


def T(s: str) -> str:
    """Dedent a triple-quoted body and make sure it ends with one newline."""
    s = textwrap.dedent(s).strip("\n")
    return s + "\n"


# Mail programs.  What each writes: its own header (or none), whether its
# RFC 2047 encoded words carry an upper-case "B"/"Q" (most Windows clients
# do; the Python email package writes lower case), the shape of its
# Message-ID and Date, the name it gives in SMTP HELO when it submits mail
# (see submission()), and any headers of its own.  Spam and ham use the same
# programs: the sample must not let a filter tell them apart by mailer.
MUAS = {
    "outlook16": dict(header=("X-Mailer", "Microsoft Outlook 16.0"), upper=True,
                      msgid="outlook", date="short", helo="desktop", extra=[("Content-Language", "{lang_tag}")]),
    "outlook": dict(header=("X-Mailer", "Microsoft Office Outlook 12.0"), upper=True,
                    msgid="outlook", date="short", helo="desktop", extra=[("Thread-Index", "{thread_index}")]),
    "oe": dict(header=("X-Mailer", "Microsoft Outlook Express 6.00.2900.5512"), upper=True,
               msgid="oe", date="short", helo="user",
               extra=[("X-Priority", "3"), ("X-MSMail-Priority", "Normal"),
                      ("X-MimeOLE", "Produced By Microsoft MimeOLE V6.00.2900.5512")]),
    "foxmail": dict(header=("X-Mailer", "Foxmail 6, 15, 201, 26 [cn]"), upper=True,
                    msgid="foxmail", date="short", helo="desktop", extra=[]),
    "foxmail7": dict(header=("X-Mailer", "Foxmail 7.2.25.228[cn]"), upper=True,
                     msgid="foxmail", date="short", helo="desktop", extra=[("X-Priority", "3")]),
    "coremail": dict(header=("X-Mailer", "Coremail Webmail Server Version XT5.0.14 build 20230109"), upper=False,
                     msgid="coremail", date="cst", helo="webmail", extra=[]),
    "thunderbird": dict(header=("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:115.0) "
                                "Gecko/20100101 Thunderbird/115.6.0"), upper=False,
                        msgid="uuid", date="short", helo="ipv6", extra=[("Content-Language", "{lang_tag}")]),
    "mutt": dict(header=("User-Agent", "Mutt/2.2.12 (2023-09-09)"), upper=False,
                 msgid="mutt", date="padded", helo="ipv6", extra=[]),
    "apple": dict(header=("X-Mailer", "Apple Mail (2.3774.300.61)"), upper=False,
                  msgid="apple", date="short", helo="ipv6", extra=[]),
    "iphone": dict(header=("X-Mailer", "iPhone Mail (21C66)"), upper=False,
                   msgid="apple", date="short", helo="ipv6", extra=[]),
    "roundcube": dict(header=("User-Agent", "Roundcube Webmail/1.6.5"), upper=False,
                      msgid="hex", date="padded", helo="webmail", extra=[]),
    "php": dict(header=("X-Mailer", "PHPMailer 6.8.0"), upper=False,
                msgid="hex", date="padded", helo="local", extra=[]),
    # The web page of a free-mail service: no mailer header of its own.
    "webmail": dict(header=None, upper=False, msgid="webmail", date="padded", helo="webmail", extra=[]),
    # A bulk-mail service that writes the message itself (newsletters,
    # receipts, campaigns).
    "esp": dict(header=None, upper=False, msgid="esp", date="utc", helo="local", extra=[]),
    # A script or program that writes its own headers and nothing more.
    "none": dict(header=None, upper=False, msgid="plain", date="noweekday", helo="host", extra=[]),
}

# Mailing lists the ham messages come from.
LISTS = {
    "python": ("Python users discussion", "python-users", "lists.example.org"),
    "lug": ("Linux users group", "lug", "lists.example.org"),
    "hiking": ("Ridgeline Hiking Club members", "members", "ridgeline-hikers.example.org"),
    "python-cn": ("Python CN discussion", "python-cn", "lists.example.org"),
    "linux-cn": ("Linux CN discussion", "linux-cn", "lists.example.org"),
    "ds-course": ("Data structures course", "ds2025", "lists.univ.example"),
}

# Default mailbox owner per language (the address the message was delivered to).
DEFAULT_RCPT = {
    "en": "Alex Morgan <alex.morgan@example.com>",
    "zh": "li.wei@example.com",
}

# File-name abbreviations.
SHORT_KIND = {"plain": "plain", "html": "html", "alternative": "alt",
              "mixed-attachment": "mixed"}
SHORT_CS = {"us-ascii": "ascii", "utf-8": "utf8", "iso-8859-1": "latin1",
            "gb2312": "gb2312", "gbk": "gbk", "big5": "big5"}
SHORT_CTE = {"7bit": "7bit", "8bit": "8bit", "base64": "b64",
             "quoted-printable": "qp"}


def tiny_png() -> bytes:
    """A valid 8x8 PNG (blue sky over a green hill), built deterministically."""
    width = height = 8
    rows = []
    for y in range(height):
        row = b"\x00"  # filter type 0
        for x in range(width):
            row += b"\x3c\x8d\x3c" if y >= 5 or (y == 4 and 2 <= x <= 5) else b"\x87\xce\xeb"
        rows.append(row)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    # zlib stream with one "stored" deflate block, so the bytes do not depend
    # on the zlib version the script happens to run with.
    raw = b"".join(rows)
    idat = (b"\x78\x01\x01" + struct.pack("<HH", len(raw), len(raw) ^ 0xFFFF)
            + raw + struct.pack(">I", zlib.adler32(raw)))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def tiny_pdf(title: str) -> bytes:
    """A short fake PDF (enough for file(1) to say 'PDF document')."""
    return ("%PDF-1.4\n"
            "% spamnb sample attachment - not a real document\n"
            f"% {title}\n"
            "1 0 obj << /Type /Catalog >> endobj\n"
            "trailer << /Root 1 0 R >>\n"
            "%%EOF\n").encode("ascii")


def tiny_zip(member: str, text: str) -> bytes:
    """A real, harmless zip archive with a fixed timestamp."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        info = zipfile.ZipInfo(member, date_time=(2024, 11, 5, 9, 30, 0))
        info.external_attr = 0o644 << 16
        zf.writestr(info, text)
    return buf.getvalue()


# ---------------------------------------------------------------------------
# Message data
#
# One dict per message.  Keys:
#   lang      "en" or "zh"
#   kind      plain | html | alternative | mixed-attachment
#   charset   charset of the text part(s)
#   cte       Content-Transfer-Encoding of the text part(s)
#   frm       (display name, address)
#   subject   decoded subject
#   text      text/plain body (plain, alternative, mixed-attachment)
#   html      text/html body (html, alternative)
#   phrase    a phrase that occurs verbatim in the decoded body
#   via       key of ROUTES: the way the message came (see "Headers" below)
#   mua       key of MUAS: the program that wrote it
# Optional:
#   to        To: header (default: DEFAULT_RCPT[lang])
#   rcpt      envelope recipient, if different from To (mailing lists)
#   subj_enc  (charset, "B"|"Q") for a non-ASCII Subject (default: body charset)
#   from_enc  (charset, "B"|"Q") for a non-ASCII display name
#   list      key of LISTS (with via="list"; adds List-Id and friends)
#   poster    the route by which a list post reached the list server (default freemail)
#   helo      the host name a sender's own server or program gives (via="direct")
#   rdns      its reverse DNS name; "{ip}" stands for its address, dashed
#   tls       False for a sender whose server talks to ours without TLS
#   extra     list of (header, value) pairs added before MIME-Version
#   attach    dict(filename=..., ctype=..., data=bytes[, filename_charset=...])
# ---------------------------------------------------------------------------

MAIL_SPAM_EN = [
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="esp", mua="esp",
        frm=("NorthStar Rx Outlet", "orders@northstar-rx.example"),
        subject="Save up to 80% on your prescriptions - no doctor visit needed",
        phrase="discreet packaging",
        text=T("""
            Hello,

            Why pay full price at the counter? NorthStar Rx Outlet ships brand and
            generic medications straight to your door in discreet packaging.

             * Pain relief, sleep aids, allergy and weight-loss products
             * No prescription required for most orders
             * Overnight shipping available to US, UK, CA and AU
             * Secure checkout - we accept all major cards

            This week only: order 90 tablets and get 30 more FREE.

            Browse the full catalogue here:
            http://northstar-rx.example/catalog?ref=mx4471

            Best regards,
            Customer Care Team
            NorthStar Rx Outlet

            To stop receiving these offers reply with REMOVE in the subject line.
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="webhost", mua="php",
        frm=("Approval Desk", "decisions@quickfund-lending.example"),
        subject="Alex, your $25,000 loan has been PRE-APPROVED",
        phrase="no collateral and no paperwork",
        text=T("""
            Dear Alex,

            Good news! Based on a recent review of your profile you qualify for a
            personal loan of up to $25,000 with a fixed rate as low as 3.9% APR.

            There is no credit check, no collateral and no paperwork to mail.
            Funds can be in your bank account within 24 hours of acceptance.

            Your approval code: QF-77310-B

            To accept your offer, simply confirm your details at:
            http://quickfund-lending.example/accept?code=QF-77310-B

            This pre-approval expires in 48 hours. Don't miss out.

            Sincerely,
            Martin Hale
            Senior Loan Officer
            """),
    ),
    dict(
        lang="en", kind="html", charset="utf-8", cte="quoted-printable", via="univ", mua="coremail",
        frm=("Account Security", "security-alert@accounts-verify.example"),
        subject="Action required: verify your account within 24 hours",
        phrase="avoid permanent suspension",
        html=T("""
            <!DOCTYPE html>
            <html>
            <head>
            <meta http-equiv="Content-Type" content="text/html; charset=utf-8">
            <style type="text/css">
              body { font-family: Arial, sans-serif; background: #f4f4f4; }
              .box { background: #ffffff; border: 1px solid #dddddd; padding: 24px; width: 520px; }
              .btn { background: #0a66c2; color: #ffffff; padding: 10px 18px; text-decoration: none; }
            </style>
            </head>
            <body>
            <div class="box">
            <img src="http://www.example.org/wp-content/uploads/2025/01/acct/logo.png" alt="Account Center" width="120" height="40">
            <h2>Unusual sign-in activity</h2>
            <p>We detected a sign-in attempt to your account from an unrecognized device
            (location: unknown, IP 198.51.100.23).</p>
            <p>For your protection, some features have been temporarily limited.
            Please verify your account within 24 hours to avoid permanent suspension.</p>
            <p><a class="btn" href="http://www.example.org/wp-content/uploads/2025/01/acct/confirm.php?id=7f3a9c">Verify my account</a></p>
            <p>If you do not complete verification, your mailbox &amp; stored files may be deleted.</p>
            <p style="font-size:11px;color:#888888">&copy; 2025 Account Center. All rights reserved.</p>
            </div>
            </body>
            </html>
            """),
    ),
    dict(
        # Words broken up with HTML comments, plus grey "hash buster" words.
        lang="en", kind="html", charset="utf-8", cte="7bit", via="direct", mua="none",
        frm=("Prestige Timepieces", "outlet@prestige-timepieces.example"),
        subject="Luxury watches at 1/10 the price",
        phrase="inspected by hand before shipping",
        html=T("""
            <html><body bgcolor="#ffffff">
            <table width="560" cellpadding="6"><tr><td>
            <font face="Georgia" size="4" color="#7a5c00"><b>Prestige Timepieces Outlet</b></font><br>
            <font face="Verdana" size="2">
            Swiss-style automatic movements, sapphire-look crystal, steel bracelets.<br>
            Every re<!-- qz -->plica watch is inspected by hand before shipping.<br>
            <br>
            Order two and shipping is fr<!-- x -->ee worldwide. Sale ends Sun<!-- -->day at midnight.<br>
            <br>
            <a href="http://prestige-timepieces.example/new-arrivals">See the new arrivals</a><br>
            </font>
            <font size="1" color="#fefefe">gardenia tractor umbrella velvet harbor pencil</font>
            </td></tr></table>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="alternative", charset="utf-8", cte="quoted-printable", via="freemail", mua="webmail",
        frm=("International Prize Commission", "intl.prize.commission@example.net"),
        subject="Final notice: unclaimed prize of €850,000.00",
        subj_enc=("utf-8", "Q"),
        phrase="second category prize",
        text=T("""
            ATTENTION: WINNING NOTIFICATION

            Dear Lucky Winner,

            We are pleased to inform you that your e-mail address was selected in
            the Euro Millennium Online Draw held on 12 December. Your address was
            attached to ticket number 0045-1187-22 and batch EMD/77/2024, which
            won the second category prize of €850,000.00 (Eight Hundred and Fifty
            Thousand Euro).

            To begin the release of your funds, contact our claims agent with:
              1. Full name
              2. Home address and telephone number
              3. Copy of passport or driver's licence
              4. Winning reference number

            Claims agent: Mr. Peter Vandermolen
            E-mail: p.vandermolen@global-prize-board.example

            Please keep this award confidential until your claim is processed,
            to avoid double claiming.

            Congratulations once again!
            Mrs. Helena Kouris
            Prize Coordinator
            """),
        html=T("""
            <html><body>
            <p><b>ATTENTION: WINNING NOTIFICATION</b></p>
            <p>Dear Lucky Winner,</p>
            <p>We are pleased to inform you that your e-mail address was selected in the
            Euro Millennium Online Draw held on 12 December. Your address was attached to
            ticket number <b>0045-1187-22</b> and batch <b>EMD/77/2024</b>, which won the
            second category prize of <b>€850,000.00</b> (Eight Hundred and Fifty Thousand Euro).</p>
            <p>To begin the release of your funds, contact our claims agent with:</p>
            <ol><li>Full name</li><li>Home address and telephone number</li>
            <li>Copy of passport or driver's licence</li><li>Winning reference number</li></ol>
            <p>Claims agent: Mr. Peter Vandermolen<br>
            E-mail: <a href="mailto:p.vandermolen@global-prize-board.example">p.vandermolen@global-prize-board.example</a></p>
            <p>Please keep this award confidential until your claim is processed.</p>
            <p>Congratulations once again!<br>Mrs. Helena Kouris<br>Prize Coordinator</p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="iso-8859-1", cte="quoted-printable", via="freemail", mua="outlook16",
        frm=("Amélie Durand", "amelie.durand.leads@example.net"),
        subject="Café owners: fill every table this season",
        phrase="crème brûlée photos",
        text=T("""
            Hello café owner,

            Is your dining room half empty on weekdays? Our "Table Pleine" programme
            has helped more than 400 cafés and brasseries double their covers.

            What you get for one flat fee:
             - First-page placement on map and review sites
             - 50 five-star reviews written by our professional team
             - A new menu design with entrées, plats and crème brûlée photos
             - Automated messages to every guest who ordered à la carte

            No contract. Results guaranteed in 30 days or your money back.

            Reply "OUI" to this message and our consultant will call you today.

            Amélie Durand
            Gourmet Leads Agency
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="direct", mua="thunderbird", helo="mail.example.org",
        frm=("Daniel Brooks", "daniel.brooks.seo@example.org"),
        subject="Quick question about example.com",
        phrase="weak backlink profile",
        text=T("""
            Hi there,

            I was looking at your website example.com and noticed it is not
            showing up on the first page for several of your main keywords.

            I'm an SEO specialist and I help small businesses get more organic
            traffic. We can fix:

            - broken links and slow page speed
            - missing meta descriptions
            - weak backlink profile
            - poor mobile usability

            We offer a free audit with no obligation. If you are interested, reply
            to this email and I will send you a detailed proposal and our price list.

            Thanks,
            Daniel Brooks
            Digital Marketing Consultant

            P.S. If you don't want me to contact you again, just reply "no thanks".
            """),
    ),
    dict(
        lang="en", kind="html", charset="utf-8", cte="base64", via="esp", mua="esp",
        frm=("Small Cap Insider", "alerts@smallcap-insider.example"),
        subject="TKRX is about to explode - get in before Monday",
        phrase="Insiders have been buying heavily",
        html=T("""
            <html><head><style>td{font-family:Tahoma;font-size:13px} .hot{color:#cc0000;font-weight:bold}</style></head>
            <body>
            <table width="600" border="0">
            <tr><td><span class="hot">URGENT STOCK ALERT</span></td></tr>
            <tr><td>Company: Tekora Resources Inc.<br>Symbol: TKRX<br>Current price: $0.18<br>5-day target: $1.25</td></tr>
            <tr><td>Our analysts believe TKRX has signed a major lithium supply deal that will be
            announced next week. Insiders have been buying heavily.</td></tr>
            <tr><td>Smart money is already moving. Don’t be the one who watched from the sidelines!</td></tr>
            <tr><td><a href="http://smallcap-insider.example/r/tkrx">Read the full report</a></td></tr>
            <tr><td style="font-size:9px;color:#999">This newsletter is a paid advertisement. We hold shares
            and may sell at any time.</td></tr>
            </table></body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="8bit", via="webhost", mua="php",
        frm=("Dr. Ray Whitfield", "dr.ray@vitality-labs.example"),
        subject="Feel 25 again – the secret doctors won't tell you",
        subj_enc=("utf-8", "Q"),
        phrase="rediscovered their confidence",
        text=T("""
            Gentlemen,

            Tired? Low energy after 40? Things not quite what they used to be “in the evenings”?

            VitaMax Plus™ is an all-natural blend of herbs that supports stamina,
            confidence and performance — without a prescription.

            ✔ Results within 30 minutes
            ✔ 100% herbal, no side effects
            ✔ Shipped in a plain envelope — nobody has to know

            Thousands of men have already rediscovered their confidence.
            Your partner will thank you.

            Order today and get a second bottle for just $1:
            http://vitality-labs.example/men/offer

            Dr. Ray Whitfield
            """),
    ),
    dict(
        lang="en", kind="alternative", charset="us-ascii", cte="7bit", via="cloud", mua="outlook16",
        frm=("Accounts Receivable", "billing@invoice-portal.example"),
        to="platform-team@example.com",
        subject="Invoice INV-20931 is overdue",
        phrase="arrange payment today",
        text=T("""
            Hello,

            Our records show that invoice INV-20931 (amount due: $1,284.50) is now
            14 days past due.

            Please review the invoice and arrange payment today to avoid a late
            fee and interruption of service:

            http://invoice-portal.example/view/INV-20931

            If you have already paid, please disregard this notice.

            Kind regards,
            Accounts Receivable Department
            """),
        html=T("""
            <html><body style="font-family:Calibri,Arial;font-size:11pt">
            <p>Hello,</p>
            <p>Our records show that invoice <b>INV-20931</b> (amount due: <b>$1,284.50</b>)
            is now 14 days past due.</p>
            <p>Please review the invoice and arrange payment today to avoid a late fee and
            interruption of service:</p>
            <p><a href="http://invoice-portal.example/view/INV-20931">View invoice INV-20931</a></p>
            <p>If you have already paid, please disregard this notice.</p>
            <p>Kind regards,<br>Accounts Receivable Department</p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="mixed-attachment", charset="us-ascii", cte="7bit", via="cloud", mua="outlook16",
        frm=("Karen Ellis", "karen.ellis@freight-docs.example"),
        subject="RE: Shipment documents and payment advice",
        phrase="release the goods",
        text=T("""
            Good day,

            Please find attached the shipping documents and payment advice for
            your recent order. Kindly check and confirm the bank details before
            we release the goods.

            The file is password protected for your security.
            Password: 4417

            Regards,
            Karen Ellis
            Logistics Coordinator
            """),
        attach=dict(filename="Shipment_Docs_4417.zip", ctype="application/zip",
                    data=tiny_zip("Shipment_Docs_4417.txt",
                                  "Harmless placeholder file for the spamnb sample set.\n")),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="base64", via="list", mua="iphone",
        list="hiking", poster="freemail",
        frm=("Jessica", "jessica.m.home@example.net"),
        subject="I made $4,300 last week working from my kitchen table",
        phrase="about two hours a day",
        text=T("""
            Hi friend,

            Six months ago I was a stay-at-home mom with $12 in my checking account.
            Last week I made $4,300 from my laptop, working about two hours a day.

            No selling – no experience – no boss.

            I'm not allowed to share all the details here, but I recorded a short
            video that explains the whole system step by step:

            https://sites.example.com/view/homeincome-video?u=8831

            They are only taking 50 new members this month, so don't wait.

            Talk soon,
            Jessica
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="quoted-printable", via="esp", mua="esp",
        frm=("Executive Skills Institute", "events@exec-skills-institute.example"),
        subject="3-day PM certification bootcamp — 98% pass rate, seats limited",
        subj_enc=("utf-8", "Q"),
        phrase="first-time pass rate",
        text=T("""
            Dear Professional,

            Advance your career with our intensive Project Management Certification
            Bootcamp – now running in 12 cities and online.

            • 35 contact hours, fully accredited
            • Exam voucher and official handbook included
            • Taught by certified trainers with 20+ years’ experience
            • 98% first-time pass rate

            Upcoming sessions:
              Chicago ........ 10–12 March
              Toronto ........ 17–19 March
              Live online .... every weekend

            Early-bird price: $1,195 (regular $1,890) – ends Friday.

            Register now: http://exec-skills-institute.example/pm-bootcamp

            Your company can pay by invoice. Group discounts for 3+ participants.

            To unsubscribe, click here: http://exec-skills-institute.example/u
            """),
    ),
    dict(
        lang="en", kind="html", charset="iso-8859-1", cte="quoted-printable", via="webhost", mua="php",
        frm=("CareerBoost", "team@careerboost-cv.example"),
        subject="Is your résumé costing you interviews?",
        phrase="six seconds on each résumé",
        html=T("""
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head>
            <body style="font-family:Verdana">
            <p>Hello job seeker,</p>
            <p>Recruiters spend just six seconds on each résumé. Make them count.</p>
            <p>Our certified writers will rewrite your CV, cover letter and online profile
            in 48 hours &ndash; guaranteed to get you more interviews.</p>
            <ul>
            <li>Professional résumé rewrite &ndash; $49</li>
            <li>Cover letter + résumé &ndash; $79</li>
            <li>Executive package with keyword optimisation &ndash; $149</li>
            </ul>
            <p><a href="http://careerboost-cv.example/order">Order now</a> and get a free profile headline review.</p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="freemail", mua="webmail",
        frm=("Barrister Edward Lindqvist", "e.lindqvist.chambers@example.net"),
        subject="Confidential business proposal",
        phrase="no next of kin",
        text=T("""
            Dear Friend,

            I am Barrister Edward Lindqvist, personal attorney to the late Mr. Thomas
            R. Henley, a contractor who died in a road accident three years ago. He
            left a deposit of US$7,500,000.00 (Seven Million Five Hundred Thousand
            United States Dollars) with a private bank, and no next of kin has come
            forward.

            The bank has now asked me to provide a relative or the funds will be
            declared unclaimed. I propose to present you as the beneficiary. The
            transfer will be executed under a legitimate arrangement that will
            protect you from any breach of law.

            I am willing to share the proceeds 50/50. Please reply with your full
            name, private phone number and occupation so that we can proceed.

            Treat this matter as strictly confidential.

            Yours faithfully,
            Barrister Edward Lindqvist
            """),
    ),
    dict(
        lang="en", kind="alternative", charset="utf-8", cte="base64", via="esp", mua="esp",
        frm=("Rx Savings Club", "deals@rx-savings-club.example"),
        subject="Your 70% member discount is waiting",
        phrase="Licensed pharmacists on call",
        text=T("""
            Member-only pricing, this week only.

            Allergy relief ............ from $0.45 per pill
            Sleep support ............. from $0.60 per pill
            Weight management ......... from $1.10 per pill
            Men's health .............. from $0.99 per pill

            ✓ Licensed pharmacists on call
            ✓ Free shipping on orders over $99
            ✓ 100% money-back guarantee

            Shop now: http://rx-savings-club.example/members

            You are receiving this because you joined our savings club.
            Unsubscribe: http://rx-savings-club.example/unsub
            """),
        html=T("""
            <html><body>
            <h3 style="color:#2b7a0b">Member-only pricing, this week only</h3>
            <table cellpadding="3">
            <tr><td>Allergy relief</td><td>from $0.45 per pill</td></tr>
            <tr><td>Sleep support</td><td>from $0.60 per pill</td></tr>
            <tr><td>Weight management</td><td>from $1.10 per pill</td></tr>
            <tr><td>Men's health</td><td>from $0.99 per pill</td></tr>
            </table>
            <p>✓ Licensed pharmacists on call<br>✓ Free shipping on orders over $99<br>
            ✓ 100% money-back guarantee</p>
            <p><a href="http://rx-savings-club.example/members">Shop now</a></p>
            <p style="font-size:10px">You are receiving this because you joined our savings club.
            <a href="http://rx-savings-club.example/unsub">Unsubscribe</a></p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="internal", mua="roundcube",
        frm=("IT Help Desk", "k.osei@example.com"),
        subject="[Warning] Your mailbox has exceeded its storage limit",
        phrase="validate your mailbox",
        text=T("""
            Dear alex.morgan@example.com,

            Your mailbox has reached 99.2% of its storage quota (1.98 GB / 2 GB).
            Incoming messages are being held and will be returned to the sender.

            To restore normal delivery, please validate your mailbox and request a
            free quota upgrade using the link below:

            http://shop.example.net/media/catalog/upgrade/?user=alex.morgan

            Failure to validate within 12 hours will result in the loss of your
            messages.

            Thank you,
            Webmail Administrator
            example.com IT Help Desk
            """),
    ),
    dict(
        lang="en", kind="html", charset="utf-8", cte="8bit", via="direct", mua="none",
        frm=("Crypto Rewards", "giveaway@coin-rewards.test"),
        subject="🎁 You have 0.25 BTC waiting in your wallet",
        subj_enc=("utf-8", "B"),
        phrase="small verification deposit",
        html=T("""
            <html><body style="background:#111;color:#eee;font-family:Helvetica">
            <center>
            <h1>🚀 Bonus unlocked!</h1>
            <p>Your reward balance: <b>0.25 BTC</b> (≈ $16,400)</p>
            <p>To celebrate our 5th anniversary we are giving away 1,000 BTC to active community members.</p>
            <p>Withdrawal is instant once you confirm your wallet with a small verification deposit.</p>
            <p><a href="http://coin-rewards.test/claim?ref=a8f2" style="color:#ffcc00">Claim my bonus →</a></p>
            <p style="font-size:10px">Offer valid for 24 hours only.</p>
            </center>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="quoted-printable", via="direct", mua="thunderbird",
        helo="mail.example.org",
        frm=("Olivia Grant", "olivia.grant.media@example.org"),
        subject="Guest post collaboration for your blog",
        phrase="One do-follow link",
        text=T("""
            Hi Editor,

            I hope you're doing well. I'm Olivia, outreach manager at ContentReach
            Media. We work with brands in finance, health and travel, and I'd love
            to contribute a high-quality article to your blog.

            Our requirements are simple:
            1. One do-follow link to our client's site
            2. Article stays live permanently
            3. No "sponsored" tag

            We pay $80 per published post by bank transfer, and we can send 5-10
            posts per month.

            Let me know your price if it's different.

            Best,
            Olivia Grant
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="8bit", via="direct", mua="oe",
        frm=("Timeless Replicas", "sales@timeless-replicas.example"),
        subject="Swiss-look watches from $129 – boxed & papered",
        subj_enc=("utf-8", "Q"),
        phrase="correct weight, correct engravings",
        text=T("""
            Dear Watch Lover,

            Why spend $9,000 when you can wear the same look for $129?

            Our 1:1 timepieces feature:
              – automatic movement with 42-hour power reserve
              – 904L steel case and sapphire crystal
              – correct weight, correct engravings, correct box

            “I've worn mine every day for a year and nobody has noticed.” — Mark, Denver

            New arrivals this month: diver, pilot and moon-phase models.

            Free express shipping worldwide. Pay on delivery available in some countries.

            Browse the catalogue: http://timeless-replicas.example/catalog
            """),
    ),
    dict(
        lang="en", kind="alternative", charset="utf-8", cte="quoted-printable", via="esp", mua="esp",
        frm=("Customer Rewards", "rewards@shopper-survey.example"),
        subject="Congratulations! You've been selected for a $500 gift card",
        phrase="annual customer appreciation program",
        text=T("""
            Congratulations!

            You have been randomly selected to receive a $500 gift card as part of
            our annual customer appreciation program.

            All you need to do is answer 5 quick questions about your shopping
            experience. It takes less than 60 seconds.

            Start the survey now: http://shopper-survey.example/start?id=55219

            Only 3 gift cards remain for today — act fast!

            (A shipping fee of $2.95 applies.)
            """),
        html=T("""
            <html><body style="text-align:center;font-family:Arial">
            <h1 style="color:#e67e22">Congratulations!</h1>
            <p>You have been randomly selected to receive a <b>$500 gift card</b> as part of
            our annual customer appreciation program.</p>
            <p>All you need to do is answer 5 quick questions about your shopping experience.
            It takes less than 60 seconds.</p>
            <p><a href="http://shopper-survey.example/start?id=55219"><img src="http://shopper-survey.example/img/start-button.png" alt="Start the survey"></a></p>
            <p>Only 3 gift cards remain for today — act fast!</p>
            <p style="font-size:9px;color:#aaa">(A shipping fee of $2.95 applies.)</p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="list", mua="none",
        list="lug", poster="direct",
        frm=("Debt Relief Center", "info@debtrelief-center.example"),
        subject="Cut your monthly payments in half",
        phrase="Stop collection calls",
        text=T("""
            Are credit card bills keeping you up at night?

            Our Debt Relief Program can combine all your balances into ONE low
            monthly payment and may reduce what you owe by up to 60%.

            - Stop collection calls
            - Avoid bankruptcy
            - One simple payment
            - Free consultation, no upfront fees

            See if you qualify in 2 minutes:
            http://debtrelief-center.example/check

            Debt Relief Center
            Please allow 10 business days to process removal requests.
            """),
    ),
    dict(
        lang="en", kind="html", charset="utf-8", cte="quoted-printable", via="direct", mua="none",
        frm=("Parcel Delivery Service", "noreply@parcel-redelivery.example"),
        subject="Delivery attempt failed - parcel on hold",
        phrase="outstanding customs fee",
        html=T("""
            <html>
            <head><style>.c{font-family:Arial;font-size:14px;color:#333}.t{color:#d40511;font-size:18px}</style></head>
            <body>
            <div class="c">
            <p class="t">We couldn’t deliver your parcel</p>
            <p>Tracking number: PD-4471-9920-US</p>
            <p>Our courier attempted delivery on 14 January but no one was available to sign.
            Your parcel is now being held at our local depot.</p>
            <p>To schedule a redelivery, please pay the outstanding customs fee of $1.99 within 72 hours.</p>
            <p><a href="http://parcel-redelivery.example/schedule?t=PD44719920">Schedule redelivery</a></p>
            <p>After 72 hours the parcel will be returned to sender.</p>
            </div>
            </body>
            </html>
            """),
    ),
]

MAIL_SPAM_ZH = [
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="xinmail", mua="foxmail",
        frm=("王经理", "wangjl_fp@xinmail.example"),
        to="caiwu@example.com",
        subject="代开各地正规发票，点数优惠",
        phrase="先验票后付款",
        text=T("""
            尊敬的公司负责人/财务经理：

            您好！

            本公司为深圳、广州、东莞等地多家贸易公司的代理，因进项较多，
            每月有部分发票额度剩余。
            我司可办理正规发票（保真）17%增值税发票点数优惠！

            可代开范围：
              1、增值税专用发票、普通发票
              2、广告费、运输费、服务费、建筑安装发票
              3、餐饮、住宿、会议费、商品销售发票

            所有发票均可上网查询或到税务局验证，先验票后付款。
            点数优惠，金额越大点数越低，长期合作更有优惠。

            联系人：王经理
            邮  箱：wangjl_fp@xinmail.example

            如有打扰，敬请谅解！
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="8bit", via="direct", mua="oe",
        frm=("李先生", "lixs_invoice@zhongxin-biz.example"),
        subject="您好！财务部",
        phrase="真票真开",
        text=T("""
            财务部负责人您好：

              我公司是一家有实力的商贸公司，在全国各地有较好的税务关系，
            现长期对外代开以下发票：
              ◆ 增值税专用发票（可抵扣）
              ◆ 普通商品销售发票
              ◆ 运输、广告、服务业发票
              ◆ 建筑安装、劳务费发票

            税点：1.5%～6%（视金额大小而定）
            本公司郑重承诺：所开发票均为税务局直接出具，真票真开，可网上查询。

            如贵公司有需要，请回复邮件咨询，我们将竭诚为您服务。

            联 系 人：李先生
            电子邮箱：lixs_invoice@zhongxin-biz.example
            """),
    ),
    dict(
        # Training spam with <style>, <script>, a tracking <img>, links and
        # entities (&nbsp; &amp; and &#20813; = 免).
        lang="zh", kind="html", charset="gb2312", cte="base64", via="esp", mua="esp",
        frm=("企业管理培训中心", "kefu@hr-training.example"),
        subject="中层经理管理技能提升特训营（北京/上海）",
        phrase="目标管理与计划执行",
        html=T("""
            <html>
            <head>
            <meta http-equiv="Content-Type" content="text/html; charset=gb2312">
            <title>管理培训</title>
            <style>
            body {font-size:12px; font-family:宋体;}
            .title {color:#c00000; font-size:20px; font-weight:bold;}
            td {line-height:22px;}
            </style>
            <script language="javascript">
            var ref = "em20250112";
            function track() { document.images[0].src = "http://hr-training.example/t.gif?r=" + ref; }
            </script>
            </head>
            <body onload="track()">
            <img src="http://hr-training.example/t.gif" width="1" height="1">
            <p class="title">中层经理管理技能提升特训营</p>
            <table width="620" border="0">
            <tr><td>【时间地点】2025年3月15-16日&nbsp;北京&nbsp;&nbsp;3月22-23日&nbsp;上海</td></tr>
            <tr><td>【参加对象】企业总经理、部门经理、主管及后备干部</td></tr>
            <tr><td>【课程费用】2800元/人（含资料、午餐、茶点、证书）</td></tr>
            <tr><td>【课程大纲】</td></tr>
            <tr><td>一、从业务骨干到管理者的角色转变<br>二、目标管理与计划执行<br>三、高效沟通&amp;团队激励<br>四、问题分析与决策方法</td></tr>
            <tr><td>本期课程企业团体报名三人以上可享&#20813;费名额一个！</td></tr>
            <tr><td>报名咨询：<a href="http://hr-training.example/signup">点击在线报名</a></td></tr>
            </table>
            <p style="color:#999999">如您不希望再收到此类信息，请回复“退订”。</p>
            </body>
            </html>
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="list", mua="thunderbird",
        list="python-cn", poster="xinmail",
        frm=("华誉企业管理咨询", "huayu_jiangzuo@xinmail.example"),
        subject="新形势下企业税务筹划与风险防范公开讲座",
        phrase="合理节税的十二种方法",
        text=T("""
            各位企业负责人、财务总监：

            税务监管日趋严格，企业税务风险日益增加。您的企业是否存在以下问题？
              ・公户私户资金往来频繁
              ・成本票据不足，所得税压力大
              ・股东分红个税过高

            为此，我们特邀资深税务专家举办“新形势下企业税务筹划与风险防范”公开讲座：

              时间：2025年4月12日（周六）9:00-17:00
              地点：广州市天河区（报名后另行通知）
              费用：1980元/人，同一单位两人以上九折

            讲座内容：
              1. 税务稽查新动向与典型案例
              2. 合理节税的十二种方法
              3. 发票管理与进项抵扣技巧
              4. 老板个人财富安全规划

            名额有限，报满即止。报名请回复姓名、单位、电话及人数。

            主办：华誉企业管理咨询中心
            """),
    ),
    dict(
        # GBK: the contact's given name 镕 is not in GB2312.
        lang="zh", kind="plain", charset="gbk", cte="base64", via="xinmail", mua="foxmail7",
        frm=("陈镕", "chenrong.tax@xinmail.example"),
        subject="长期代开各类发票，税点低",
        subj_enc=("gbk", "B"),
        phrase="陈镕（财务主管）",
        text=T("""
            您好：

                本公司长期代开全国各地增值税专用发票、普通发票，
                税点低，可验证后付款。

                开票项目：材料费、办公用品、工程款、咨询服务费、运输费等。

                业务联系：陈镕（财务主管）
                邮箱：chenrong.tax@xinmail.example

                长期合作客户点数另议，欢迎来电洽谈！
            """),
    ),
    dict(
        lang="zh", kind="alternative", charset="gb2312", cte="base64", via="esp", mua="esp",
        frm=("牛股研究中心", "vip@niugu-vip.example"),
        subject="明日涨停股提前布局（内部消息）",
        phrase="每日盘前推送一只",
        text=T("""
            尊敬的投资者：

            您还在为选股而烦恼吗？

            本机构研究团队连续三个月精准捕捉涨停个股，上周推荐的三只股票
            平均涨幅达到37%。现开放30个VIP会员名额，每日盘前推送一只
            强势牛股，包含买入价、止损价和目标价。

            本周重点关注：新能源板块龙头（代码加入会员后获取）

            免费试用三天，不满意不收费。
            申请试用资格：http://niugu-vip.example/join

            股市有风险，投资需谨慎。
            """),
        html=T("""
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head>
            <body>
            <p><b>尊敬的投资者：</b></p>
            <p>您还在为选股而烦恼吗？</p>
            <p>本机构研究团队连续三个月精准捕捉涨停个股，上周推荐的三只股票平均涨幅达到<font color="red"><b>37%</b></font>。
            现开放30个VIP会员名额，每日盘前推送一只强势牛股，包含买入价、止损价和目标价。</p>
            <p>本周重点关注：新能源板块龙头（代码加入会员后获取）</p>
            <p><a href="http://niugu-vip.example/join">免费试用三天，不满意不收费</a></p>
            <p><font size="1">股市有风险，投资需谨慎。</font></p>
            </body></html>
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="utf-8", cte="8bit", via="webhost", mua="php",
        frm=("网站优化顾问", "seo@seo-paiming.example"),
        subject="您的网站在搜索引擎首页吗？",
        subj_enc=("utf-8", "B"),
        phrase="不上首页不收费",
        text=T("""
            老板您好！

            您的网站在搜索引擎上能找到吗？客户搜“行业关键词”时，排在前面的是您还是同行？

            我们专注网站优化（SEO）十年，服务过三千多家企业：
              ✓ 关键词首页排名，不上首页不收费
              ✓ 按天计费，每天最低3元
              ✓ 网站建设、改版、手机站一条龙
              ✓ 专属客服一对一跟进

            本月签约赠送一年域名和空间。

            详情请访问 http://seo-paiming.example 或直接回复本邮件。
            """),
    ),
    dict(
        lang="zh", kind="html", charset="utf-8", cte="quoted-printable", via="webhost", mua="php",
        frm=("年终回馈活动组", "notice@nianzhong-huikui.example"),
        subject="恭喜！您获得年终回馈二等奖",
        subj_enc=("utf-8", "Q"),
        phrase="被系统随机抽中",
        html=T("""
            <html><head><meta charset="utf-8"></head>
            <body>
            <div style="border:2px solid #e60012;padding:15px;width:500px">
            <h3 style="color:#e60012">恭喜您获得年终回馈二等奖！</h3>
            <p>尊敬的用户：</p>
            <p>您的邮箱在本次年终回馈抽奖活动中被系统随机抽中，获得二等奖：<b>笔记本电脑一台</b>及现金红包<b>8888元</b>。</p>
            <p>请在7日内登录领奖页面填写收货信息并缴纳相应的个人所得税及手续费，逾期视为自动放弃。</p>
            <p><a href="http://nianzhong-huikui.example/lingjiang">立即领奖</a></p>
            <p style="font-size:12px;color:#666">活动编号：HK2025-0188　本活动最终解释权归主办方所有</p>
            </div>
            </body></html>
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="big5", cte="base64", via="freemail", mua="outlook",
        frm=("信貸專員", "xindai.service.tw@example.net"),
        subject="免保人、免抵押，小額信貸快速核准",
        phrase="最快當天撥款",
        text=T("""
            您好：

            資金周轉不靈嗎？信用卡卡債壓力大？

            本公司提供多種小額信貸方案：
              ● 免保人、免抵押，最快當天撥款
              ● 軍公教、上班族、自營商皆可申辦
              ● 額度最高新台幣一百五十萬元
              ● 月付輕鬆，利率透明

            即日起申辦免手續費，名額有限。
            線上試算：http://xindai-taiwan.example/apply

            本信件為系統發送，請勿直接回覆。若不想再收到此類資訊，請點選取消訂閱。
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="8bit", via="xinmail", mua="coremail",
        frm=("名表专卖", "mingbiao_shop@xinmail.example"),
        subject="高档手表 1:1精仿 货到付款",
        phrase="走时与正品几乎无差别",
        text=T("""
            朋友您好：

            本店专业销售各大品牌高档手表，1:1精仿，做工精细，
            外观、重量、走时与正品几乎无差别，价格仅为专柜的十分之一。

              * 瑞士机芯，走时精准
              * 蓝宝石镜面，防水五十米
              * 原装表盒、说明书、保卡齐全
              * 全国包邮，货到付款，支持验货

            新款到货，数量有限，欢迎选购。
            网址：http://mingbiao-shop.example
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="esp", mua="esp",
        frm=("汉方养元", "order@yangyuan-health.example"),
        subject="男人四十，找回年轻时的状态",
        phrase="帮助男士恢复精力",
        text=T("""
            您好：

            工作压力大、经常熬夜、应酬多，身体渐渐透支？
            精力不如从前，在家里也越来越没有底气？

            “汉方养元丸”精选人参、枸杞、黄精等十二味名贵药材，
            古法炮制，温和调理，帮助男士恢复精力、重拾自信。

              ◎ 纯中药配方，无依赖
              ◎ 隐私包装，快递直达
              ◎ 三个疗程无效全额退款

            现在订购两盒送一盒，另赠养生茶一份。
            订购网址：http://yangyuan-health.example
            """),
    ),
    dict(
        lang="zh", kind="html", charset="gb2312", cte="8bit", via="direct", mua="none",
        frm=("信用贷款服务中心", "apply@daikuan-fast.example"),
        subject="无抵押信用贷款，最快当天放款",
        phrase="凭身份证即可申请",
        html=T("""
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head>
            <body>
            <p><font color="#0033cc" size="4"><b>个人及企业信用贷款</b></font></p>
            <p>● 无需抵押，凭身份证即可申请<br>
            ● 额度5万至300万元，年化利率低至3.6%<br>
            ● 最快当天放款，随借随还<br>
            ● 征信有瑕疵也可以协助办理</p>
            <p>适用于：企业资金周转、装修、购车、教育等。</p>
            <p><a href="http://daikuan-fast.example/apply">在线申请</a>　　<a href="http://daikuan-fast.example/calc">额度测算</a></p>
            <p><font size="2" color="#999999">此邮件由系统自动发送，如不想接收请回复TD。</font></p>
            </body></html>
            """),
    ),
    dict(
        # GBK: the lecturer's name 喆 is not in GB2312.
        lang="zh", kind="plain", charset="gbk", cte="8bit", via="univ", mua="thunderbird",
        frm=("招生办公室", "edu.zhaosheng@univ.example"),
        subject="总裁研修班（第28期）招生简章",
        subj_enc=("gbk", "B"),
        phrase="周喆教授（战略管理）",
        text=T("""
            各位企业家朋友：

            “工商管理高级研修班”第28期现已开始招生。

            【课程特色】名校名师授课，实战案例教学，结业颁发研修证书
            【授课安排】每月集中授课2天（周六、周日），学制一年
            【主讲导师】周喆教授（战略管理）、林晓峰博士（资本运作）等
            【学　　费】39800元/人，含教材、资料及课间茶歇

            同学资源丰富，学员均为企业董事长、总经理，为您搭建高端人脉平台。

            报名方式请回复邮件索取。
            招生办公室
            """),
    ),
    dict(
        lang="zh", kind="alternative", charset="utf-8", cte="base64", via="univ", mua="coremail",
        frm=("邮件系统管理员", "admin@mail-upgrade.example"),
        subject="【系统通知】您的邮箱账户即将停用",
        subj_enc=("utf-8", "Q"),
        from_enc=("utf-8", "B"),
        phrase="完成账户验证",
        text=T("""
            尊敬的用户：

            由于系统升级，我们需要对所有邮箱账户进行安全验证。
            检测到您的账户存在异常登录记录，为保障您的信息安全，
            请于24小时内点击下方链接完成账户验证，否则您的邮箱将被暂停使用。

            验证地址：http://bbs.example.com/data/attachment/verify/?u=li.wei

            请勿回复此邮件。
            系统管理员
            """),
        html=T("""
            <html><body style="font-family:微软雅黑,sans-serif">
            <p>尊敬的用户：</p>
            <p>由于系统升级，我们需要对所有邮箱账户进行安全验证。检测到您的账户存在异常登录记录，为保障您的信息安全，
            请于<b style="color:red">24小时内</b>点击下方链接完成账户验证，否则您的邮箱将被暂停使用。</p>
            <p><a href="http://bbs.example.com/data/attachment/verify/?u=li.wei">http://mail.example.com/verify</a></p>
            <p>请勿回复此邮件。<br>系统管理员</p>
            </body></html>
            """),
    ),
    dict(
        lang="zh", kind="mixed-attachment", charset="gb2312", cte="base64", via="xinmail", mua="foxmail",
        frm=("培训中心会务组", "hr_peixun2025@xinmail.example"),
        to="hr@example.com",
        subject="2025年人力资源管理实务培训（附课程表）",
        phrase="薪酬绩效设计",
        text=T("""
            人力资源部负责人：

            您好！现将“2025年人力资源管理实务”系列培训课程表发给您，请查收附件。

            课程涵盖：劳动合同法实务、薪酬绩效设计、员工关系处理、招聘面试技巧。
            每期两天，上海、杭州、南京滚动开课。

            团体报名享八五折优惠，可开具培训费发票。

            报名回执请填写附件后回复本邮件。

            培训中心 会务组
            """),
        attach=dict(filename="course_schedule_2025.pdf", ctype="application/pdf",
                    data=tiny_pdf("course schedule 2025")),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="univ", mua="oe",
        frm=("财务顾问", "s2023417@stu.univ.example"),
        subject="财务节税好帮手",
        phrase="有效降低企业税负",
        text=T("""
            财务经理：您好！

            我司为一般纳税人，长期代理开具各类发票，
            可为贵公司解决成本票、进项票不足的问题，有效降低企业税负。

              增值税专用发票：点数面议
              普通发票：1%起
              全部真票，税务网站可查

            欢迎有需要的企业来邮洽谈，诚信合作，保密可靠。

            联系邮箱：s2023417@stu.univ.example
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="quoted-printable", via="cloud", mua="outlook",
        frm=("博览会组委会", "zhaozhan@logistics-expo.example"),
        subject="邀请函：2025国际物流与供应链博览会",
        phrase="享早鸟九折",
        text=T("""
            尊敬的企业负责人：

                2025第十二届国际物流与供应链博览会将于6月18日至20日在上海举行，
            展会面积五万平方米，预计吸引八百余家参展企业、五万名专业观众。

                现诚邀贵公司参展，标准展位（9平方米）报价：人民币12800元，
            光地（36平方米起）：每平方米1300元。五月前确认可享早鸟九折。

                展位有限，先到先得。如需参展资料，请回复本邮件，我们将安排专人与您联系。

            组委会招展部
            """),
    ),
    dict(
        lang="zh", kind="html", charset="gb2312", cte="base64", via="esp", mua="esp",
        frm=("易达软件", "sales@yida-qunfa.example"),
        subject="一天发送十万封邮件，精准营销利器",
        phrase="有效避开过滤",
        html=T("""
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312">
            <style>p{font-size:14px;line-height:24px}.red{color:red}</style></head>
            <body>
            <p class="red"><b>还在为找客户发愁吗？</b></p>
            <p>“易达”邮件群发系统，帮您轻松开发新客户：</p>
            <p>1. 高速发送，单机每天可发十万封以上<br>
            2. 自动更换发件人、主题和内容，有效避开过滤<br>
            3. 内置海量行业邮箱地址库，按地区、行业精准筛选<br>
            4. 实时统计打开率、点击率</p>
            <p>现在购买送三个月免费升级服务！</p>
            <p>软件下载试用：<a href="http://yida-qunfa.example/download">http://yida-qunfa.example/download</a></p>
            </body></html>
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="8bit", via="xinmail", mua="foxmail",
        frm=("海外置业顾问", "haiwai_zhiye@xinmail.example"),
        to="wang.hao@example.com",
        subject="海外置业说明会：首付三成，年租金回报8%",
        phrase="开发商包租五年",
        text=T("""
            您好：

            本周六下午，我们在公司会议室举办“海外房产投资说明会”，
            介绍东南亚热门城市精装公寓项目：

              - 永久产权，首付三成起
              - 开发商包租五年，年租金回报8%
              - 可办理长期居留签证
              - 中文物业管理，省心无忧

            到场客户均可获得精美礼品一份，现场签约另享九五折优惠。

            名额有限，请提前回复预约座位。
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="big5", cte="8bit", via="freemail", mua="outlook",
        frm=("彩券分析網", "caipiao.vip.tw@example.net"),
        subject="本期彩券獨家內部資料",
        phrase="獲利超過四十倍",
        text=T("""
            各位彩友您好：

            本站分析師團隊精研號碼走勢十年，每期提供獨家內部資料，
            上期會員命中特別號，獲利超過四十倍！

            加入會員即送：
              一、每期精選號碼三組
              二、歷史開獎走勢圖
              三、專人線上解答

            現在加入，首月會費五折。
            網址：http://caipiao-vip.example
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="cloud", mua="outlook16",
        frm=("招商部", "zhaoshang@jingshui-jiameng.example"),
        subject="诚招区域代理商：零库存、高回报",
        phrase="三个月即可回本",
        text=T("""
            尊敬的合作伙伴：

            我公司是一家专业从事家用净水设备研发、生产和销售的企业，
            产品已通过国家相关认证，现面向全国诚招市、县级区域代理商。

            合作优势：
              1. 零库存：总部统一发货，代理商无需压货
              2. 高利润：产品毛利率达到60%以上
              3. 全程扶持：提供培训、广告物料和售后服务
              4. 区域保护：每个县级区域只设一家代理

            加盟费仅需2.8万元，三个月即可回本。

            期待与您携手共赢！
            招商部
            """),
    ),
    dict(
        lang="zh", kind="alternative", charset="gbk", cte="base64", via="xinmail", mua="foxmail7",
        frm=("私募内参", "simu_neican@xinmail.example"),
        subject="私募内参：下周重点布局三大板块",
        subj_enc=("gbk", "B"),
        phrase="主力资金流向追踪",
        text=T("""
            尊敬的客户：

            感谢您一直以来的关注。本周我们为VIP会员准备了最新的私募内参，
            内容包括：
              一、下周大盘走势研判
              二、三大重点板块及龙头个股
              三、主力资金流向追踪

            本期内参限时免费领取，领取后可获得专属投资顾问一对一服务。

            点击领取：http://simu-neican.example/get

            投资有风险，入市需谨慎。
            """),
        html=T("""
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=gbk"></head>
            <body>
            <p>尊敬的客户：</p>
            <p>感谢您一直以来的关注。本周我们为VIP会员准备了最新的私募内参，内容包括：</p>
            <ol><li>下周大盘走势研判</li><li>三大重点板块及龙头个股</li><li>主力资金流向追踪</li></ol>
            <p>本期内参<b>限时免费领取</b>，领取后可获得专属投资顾问一对一服务。</p>
            <p><a href="http://simu-neican.example/get">点击领取</a></p>
            <p style="color:gray">投资有风险，入市需谨慎。</p>
            </body></html>
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="esp", mua="esp",
        frm=("轻姿", "shop@qingzi-tea.example"),
        to="wang.hao@example.com",
        subject="一个月瘦十斤，不节食不运动",
        phrase="不节食、不运动、不反弹",
        text=T("""
            亲爱的朋友：

            夏天快到了，你准备好了吗？

            “轻姿”植物酵素减肥茶，选用天然植物配方，
            不节食、不运动、不反弹，一个月轻松瘦十斤！

            真实顾客反馈：
              “喝了三周，腰围小了两寸。”（杭州 陈女士）
              “朋友都问我是不是换了发型，其实是脸小了。”（成都 刘小姐）

            限时活动：买三盒送一盒，全国包邮。
            订购：http://qingzi-tea.example
            """),
    ),
]

# Added later to the training set: more of the kinds of spam that reach a
# mailbox, so that a model trained on mail/ alone scores the unseen mbox and
# Maildir messages on what they say.
MAIL_SPAM_MORE = [
    dict(
        lang="en", kind="plain", charset="utf-8", cte="quoted-printable", via="esp", mua="esp",
        frm=("KetoBurn Max", "hello@ketoburn-max.example"),
        subject="Doctors stunned: lose 23 lbs in 30 days without dieting",
        subj_enc=("utf-8", "Q"),
        phrase="melts stubborn belly fat",
        text=T("""
            Tired of diets that don’t work?

            KetoBurn Max is the natural formula that melts stubborn belly fat while
            you sleep. No gym, no calorie counting, no hunger.

            • Lose up to 23 lbs in your first 30 days
            • Boosts energy and metabolism
            • Made in an FDA-registered facility
            • 180-day money-back guarantee

            Today only: buy 3 bottles, get 2 FREE, plus free shipping.

            Order now before stock runs out:
            http://ketoburn-max.example/special?c=0219

            These statements have not been evaluated. Results may vary.
            Unsubscribe: http://ketoburn-max.example/optout
            """),
    ),
    dict(
        lang="en", kind="html", charset="utf-8", cte="base64", via="webhost", mua="php",
        frm=("Card Services", "noreply@premier-cardservices.example"),
        subject="Alex, you are pre-approved for a $15,000 credit limit",
        phrase="no annual fee for the first year",
        html=T("""
            <html><body style="font-family:Arial,sans-serif;font-size:14px">
            <table width="580" cellpadding="8" style="border:1px solid #c9a227">
            <tr><td style="background:#1c2b4a;color:#ffffff"><b>PREMIER REWARDS CARD</b></td></tr>
            <tr><td>
            <p>Dear Alex,</p>
            <p>Congratulations! Based on your credit profile you are pre-approved for a credit
            limit of up to <b>$15,000</b> with 0% intro APR on purchases and balance transfers for 18 months.</p>
            <p>Plus: 3% cash back on every purchase and no annual fee for the first year.</p>
            <p><a href="http://premier-cardservices.example/apply?code=PR-5521">Accept my offer</a></p>
            <p style="font-size:11px;color:#888">Offer expires in 72 hours. Subject to verification.</p>
            </td></tr></table>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="alternative", charset="utf-8", cte="quoted-printable", via="freemail", mua="apple",
        frm=("Jason Lin", "jason.lin.factory@example.net"),
        subject="Re: quotation for LED strip lights and panel lights",
        phrase="We are a professional manufacturer",
        text=T("""
            Dear Purchasing Manager,

            Good day! This is Jason from Shenzhen. We are a professional manufacturer
            of LED lighting with 15 years experience and our own factory.

            Main products: LED strip lights, panel lights, flood lights, high bay.
            - CE and RoHS certified
            - OEM/ODM welcome, MOQ only 100 pcs
            - 3 years warranty, factory direct price

            Please find our latest catalog and price list on request. Free samples
            can be sent for your quality test.

            Looking forward to your inquiry.

            Best regards,
            Jason Lin
            Sales Manager
            """),
        html=T("""
            <html><body style="font-family:Calibri,Arial;font-size:11pt">
            <p>Dear Purchasing Manager,</p>
            <p>Good day! This is Jason from Shenzhen. We are a professional manufacturer of LED
            lighting with 15 years experience and our own factory.</p>
            <p><b>Main products:</b> LED strip lights, panel lights, flood lights, high bay.</p>
            <ul><li>CE and RoHS certified</li><li>OEM/ODM welcome, MOQ only 100 pcs</li>
            <li>3 years warranty, factory direct price</li></ul>
            <p>Please find our latest catalog and price list on request. Free samples can be sent
            for your quality test.</p>
            <p>Looking forward to your inquiry.</p>
            <p>Best regards,<br>Jason Lin<br>Sales Manager</p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="alternative", charset="utf-8", cte="quoted-printable", via="internal", mua="outlook16",
        frm=("Grace Liu via Docs", "m.ortega@example.com"),
        to="platform-team@example.com",
        subject="Grace Liu shared \"Q1 payroll adjustments.pdf\" with you",
        phrase="sign in with your work email",
        text=T("""
            Grace Liu shared a file with you.

              Q1 payroll adjustments.pdf
              Size: 284 KB

            This document is protected. To view it, sign in with your work email
            and password.

            Open document:
            http://files.example.net/share/view.php?doc=Q1-payroll

            This link will expire in 48 hours.
            """),
        html=T("""
            <html><body style="font-family:Segoe UI,Arial;font-size:14px">
            <p><b>Grace Liu</b> shared a file with you.</p>
            <table style="border:1px solid #ddd;padding:10px"><tr><td>
            <img src="http://files.example.net/share/pdf-icon.png" width="32" height="32" alt="PDF">
            Q1 payroll adjustments.pdf<br><span style="color:#777">284 KB</span></td></tr></table>
            <p>This document is protected. To view it, sign in with your work email and password.</p>
            <p><a href="http://files.example.net/share/view.php?doc=Q1-payroll"
            style="background:#0f6cbd;color:#fff;padding:8px 16px;text-decoration:none">Open</a></p>
            <p style="font-size:11px;color:#999">This link will expire in 48 hours.</p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="freemail", mua="webmail",
        frm=("Compensation Unit", "compensation.unit.desk@example.net"),
        to="undisclosed-recipients:;",
        subject="Your compensation payment of USD 1,500,000",
        phrase="your name is on the list of scam victims",
        text=T("""
            Attention Beneficiary,

            This is to inform you that your name is on the list of scam victims
            compensation approved by the international monetary committee.

            Each beneficiary will receive the sum of USD 1,500,000.00 (One Million
            Five Hundred Thousand United States Dollars) through an ATM card or bank
            transfer.

            To receive your payment, send the following to our paying bank:
              Full name, address, phone number, age, occupation

            Note that you are to pay only the delivery fee of USD 95.

            Regards,
            Mr. Daniel Osei
            Director, Foreign Payment Unit
            """),
    ),
    dict(
        lang="en", kind="html", charset="utf-8", cte="8bit", via="list", mua="none",
        list="lug", poster="direct",
        frm=("AI Trade Pro", "invest@aitrade-pro.example"),
        subject="Turn $250 into $8,000 with our AI trading robot",
        phrase="daily profit on autopilot",
        html=T("""
            <html><body style="font-family:Verdana;background:#f8fff8">
            <h2 style="color:#0a7a2f">Make money while you sleep 💰</h2>
            <p>Our AI trading robot analyses the crypto market 24/7 and makes a daily profit on autopilot.</p>
            <ul>
            <li>Start with only $250</li>
            <li>Average returns of 3,200% per year</li>
            <li>Withdraw your profits any time</li>
            </ul>
            <p>Thousands of ordinary people already earn $1,000 a day. Spots are limited!</p>
            <p><a href="http://aitrade-pro.example/register">Register free and start earning</a></p>
            <p style="font-size:9px">Trading involves risk. Past results do not guarantee future returns.</p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="iso-8859-1", cte="quoted-printable", via="esp", mua="esp",
        frm=("Canadian Health Care", "sales@maple-meds.example"),
        subject="Generic meds up to 85% off - discreet worldwide shipping",
        phrase="No prescription needed, no embarrassing doctor visits",
        text=T("""
            Hello,

            Save on the medications you need. Our online pharmacy offers brand and
            generic pills at prices up to 85% lower than your local drugstore.

              - Men's health: from $0.79 per pill
              - Pain relief and sleep aids
              - Anti-allergy, weight loss, anti-depressants

            No prescription needed, no embarrassing doctor visits.
            Secure payment by card, discreet worldwide shipping in 5-9 days.

            Visit our pharmacy: http://maple-meds.example/shop

            Best regards,
            Customer Service, Canadian Health Care (Pharmacie en ligne)
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="base64", via="freemail", mua="webmail",
        frm=("Billing Department", "billing.renewal.center@example.net"),
        subject="Your subscription has been renewed – $399.99 charged",
        subj_enc=("utf-8", "Q"),
        phrase="call our billing department",
        text=T("""
            Dear Customer,

            Thank you for renewing your Total Device Protection plan.
            Your account has been charged $399.99 for a 3-year subscription.

            Order number: TDP-88210-44
            Payment method: card on file
            Renewal date: today

            If you did not authorise this renewal or wish to cancel and get a
            refund, call our billing department within 24 hours:
            +1 (555) 014-3377

            If we do not hear from you, the charge will be final.

            Billing Department
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="univ", mua="foxmail7",
        frm=("周小姐", "s2022095@stu.univ.example"),
        subject="正规增值税发票代开，税点优惠",
        phrase="可先开票验证后再付款",
        text=T("""
            尊敬的财务负责人：

            您好！本公司长期为各企业提供开票服务，
            可代开增值税专用发票、增值税普通发票，
            项目包括：服务费、咨询费、材料费、运输费、办公用品、会议费等。

            所开发票均为正规发票，可上税务网站查询，
            可先开票验证后再付款，合作客户点数优惠。

            欢迎来电咨询，长期合作，诚信为本。

            联系人：周小姐
            邮箱：s2022095@stu.univ.example
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gbk", cte="8bit", via="esp", mua="esp",
        frm=("学历提升中心", "info@xueli-tisheng.example"),
        subj_enc=("gbk", "B"),
        subject="在职MBA/学历提升：免联考，周末上课，双证齐全",
        phrase="免联考入学，周末上课不耽误工作",
        text=T("""
            各位职场朋友：

            还在为学历不够影响升职加薪而烦恼吗？

            2025年在职研究生、在职MBA、本科学历提升项目现已开始报名：
              ◆ 免联考入学，周末上课不耽误工作
              ◆ 名校授课，学信网可查
              ◆ 学费可分期，企业可开具发票
              ◆ 同学均为企业中高层管理者，拓展人脉资源

            名额有限，报满即止。
            详情咨询请回复本邮件，留下您的姓名和电话，招生老师将与您联系。

            退订请回复TD。
            """),
    ),
    dict(
        lang="zh", kind="html", charset="gb2312", cte="base64", via="cloud", mua="outlook",
        frm=("卓越企业内训", "neixun@zhuoyue-neixun.example"),
        subject="打造狼性销售团队——销售技能提升内训课程",
        phrase="销售业绩倍增",
        html=T("""
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head>
            <body style="font-size:14px">
            <p><b>尊敬的企业负责人：</b></p>
            <p>您的销售团队是否存在以下问题：客户开发难、成交率低、团队士气不足？</p>
            <p>我们为企业量身定制销售技能提升内训课程，帮助企业实现销售业绩倍增。</p>
            <table border="1" cellpadding="4">
            <tr><td>课程时长</td><td>两天（可按企业需求调整）</td></tr>
            <tr><td>授课形式</td><td>案例分析、角色扮演、现场演练</td></tr>
            <tr><td>课程费用</td><td>面议，可开培训费发票</td></tr>
            </table>
            <p>联系我们预约免费课程咨询：<a href="http://zhuoyue-neixun.example/yuyue">在线预约</a></p>
            <p style="color:#999">如不需要此类信息，请回复“退订”。</p>
            </body></html>
            """),
    ),
    dict(
        lang="zh", kind="alternative", charset="utf-8", cte="base64", via="webhost", mua="php",
        frm=("企业贷款服务", "daikuan@qiye-jingyingdai.example"),
        subject="企业经营贷：低息、快速到账，最高500万",
        subj_enc=("utf-8", "B"),
        phrase="最快三个工作日到账",
        text=T("""
            老板您好：

            企业资金周转遇到困难？银行贷款手续复杂、审批慢？

            我们为中小企业提供经营贷款服务：
              额度：10万至500万元
              利率：年化低至3.45%
              期限：1至5年，先息后本
              最快三个工作日到账

            只需营业执照、法人身份证和近半年流水，即可免费评估额度。

            在线申请：http://qiye-jingyingdai.example/apply
            """),
        html=T("""
            <html><body>
            <p>老板您好：</p>
            <p>企业资金周转遇到困难？银行贷款手续复杂、审批慢？</p>
            <p>我们为中小企业提供经营贷款服务：额度10万至500万元，年化利率低至3.45%，
            期限1至5年，先息后本，最快三个工作日到账。</p>
            <p>只需营业执照、法人身份证和近半年流水，即可免费评估额度。</p>
            <p><a href="http://qiye-jingyingdai.example/apply">在线申请</a></p>
            </body></html>
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="utf-8", cte="8bit", via="xinmail", mua="coremail",
        frm=("客服小美", "kefu_xiaomei2025@xinmail.example"),
        to="undisclosed-recipients:;",
        subject="手机兼职，动动手指日赚300元",
        subj_enc=("utf-8", "B"),
        phrase="每单佣金当天结算",
        text=T("""
            亲，您好！

            现招聘网络兼职人员若干名，在家用手机即可操作：
              ● 帮商家浏览商品、点赞、收藏
              ● 每单佣金当天结算，多劳多得
              ● 时间自由，学生、宝妈、上班族均可
              ● 无需押金，新人首单即送红包

            日赚100-300元不是梦！
            有意者请加客服微信，备注“兼职”，名额有限。

            （本信息长期有效）
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="quoted-printable", via="direct", mua="oe",
        frm=("外贸通", "sales@waimao-tong.example"),
        subject="外贸客户开发系统：海关数据+邮件营销，订单翻倍",
        phrase="精准查找海外采购商",
        text=T("""
            外贸企业负责人您好！

            还在靠展会和平台等询盘吗？
            “外贸通”客户开发系统帮您精准查找海外采购商：

              1、全球海关数据实时查询，了解竞争对手客户
              2、一键获取采购商邮箱、电话及决策人信息
              3、邮件群发营销，自动追踪打开率
              4、免费试用七天，不满意不收费

            已有三千多家外贸企业使用，平均订单提升两倍以上。

            申请试用请回复公司名称和联系电话。
            """),
    ),
]

MAIL_HAM_EN = [
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="list", mua="mutt", list="python",
        poster="freemail",
        frm=("Priya Raman", "priya.raman@example.net"),
        subject="Re: asyncio.gather swallowing exceptions?",
        phrase="cancels the rest and raises",
        text=T("""
            On Tue, Jan 14, 2025 at 09:12 Tom Becker wrote:
            > When one of my coroutines raises, gather() returns but the other
            > tasks keep running in the background. Is that expected?

            Yes, that's the documented behaviour. With return_exceptions=False
            (the default) the first exception propagates to the awaiting code, but
            the remaining awaitables are not cancelled automatically.

            If you want "cancel everything on first failure", look at
            asyncio.TaskGroup (3.11+):

                async with asyncio.TaskGroup() as tg:
                    for url in urls:
                        tg.create_task(fetch(url))

            If any task fails, the group cancels the rest and raises an
            ExceptionGroup, which you can handle with except*.

            Priya
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="list", mua="thunderbird", list="lug",
        poster="direct", rdns="{ip}.static.broadband.example", helo="mail.novak.example.org",
        frm=("Marek Novak", "marek@example.org"),
        subject="Re: laptop doesn't resume from suspend after kernel update",
        phrase="systemd sleep hook",
        text=T("""
            Hi Sam,

            I had the same symptom after upgrading last month. Two things worth
            trying:

            1. Check which sleep mode is in use:

                 cat /sys/power/mem_sleep

               If it shows "s2idle [deep]" try switching to s2idle, or the other
               way round, with mem_sleep_default= on the kernel command line.

            2. Look at the journal from the failed resume:

                 journalctl -b -1 -k | grep -i -E 'suspend|resume|acpi'

            In my case the wifi driver was refusing to come back; unloading the
            module in a systemd sleep hook fixed it until the next point release.

            Post the log snippet if it's something else.

            Marek
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="8bit", via="list", mua="apple", list="hiking",
        poster="internal",
        frm=("Hannah Cole", "hannah.cole@example.com"),
        subject="Saturday hike: Falcon Ridge loop — meet 7:30 at the trailhead",
        subj_enc=("utf-8", "Q"),
        phrase="about 5½ hours",
        text=T("""
            Hi all,

            Forecast for Saturday looks good: sunny, 4–11 °C, light wind on the ridge.

            Route: Falcon Ridge loop, 14 km, ~650 m elevation gain, about 5½ hours
            with breaks. The last 2 km down the north side can be muddy — bring
            poles if you have them.

            Meeting point: upper trailhead car park, 7:30 sharp. We'll car-pool
            from the library at 6:45 for anyone who needs a ride (reply to me so I
            can count seats).

            Bring: water (at least 1.5 L), lunch, warm layer, rain jacket, headlamp
            just in case.

            Dogs on leads are welcome. Free for members, $5 for guests (covers the
            parking fee).

            See you there!
            Hannah
            """),
    ),
    dict(
        lang="en", kind="plain", charset="iso-8859-1", cte="8bit", via="freemail", mua="webmail",
        frm=("Hélène Tremblay", "helene.tremblay@example.net"),
        subject="Zoë's birthday party",
        phrase="back at the café",
        text=T("""
            Hi sweetheart,

            Just a reminder that Zoë turns seven on the 22nd and we're having a
            small party at our place in Montréal on Saturday afternoon, around 2.

            I'm making the crème brûlée your uncle likes, and Zoë has asked for a
            piñata (don't ask me where she got that idea). If you can come, could
            you bring the folding chairs from your garage?

            Grand-père says hello. His knee is much better since the operation and
            he's back at the café every morning with his newspaper.

            Love,
            Tante Hélène
            """),
    ),
    dict(
        lang="en", kind="plain", charset="iso-8859-1", cte="quoted-printable", via="cloud", mua="outlook16",
        frm=("René Fischer", "rene.fischer@example.net"),
        to="platform-team@example.com",
        rcpt="alex.morgan@example.com",
        subject="Notes from the Zürich workshop",
        phrase="naïve baseline model",
        text=T("""
            Hi team,

            Quick summary of the workshop in Zürich yesterday:

            - The partner team agreed to move the data exchange to the new API by
              the end of Q2. Their contact person is Jürgen Weiß.
            - We still need a decision on the naïve baseline model: keep it as the
              reference, or replace it with the logistic one?
            - Olivier will send the revised cost estimate (in CHF and EUR) by Friday.
            - Next meeting: 12 March, probably in Genève.

            My slides are on the shared drive under /workshops/2025-02-zurich.

            Best regards,
            René
            """),
    ),
    dict(
        lang="en", kind="alternative", charset="utf-8", cte="quoted-printable", via="esp", mua="esp",
        frm=("Packaging Weekly", "newsletter@packaging-weekly.example.org"),
        subject="Packaging Weekly #87: lock files, build backends and a free workshop",
        phrase="inspect the tarball",
        extra=[("List-Id", "Packaging Weekly <weekly.packaging-weekly.example.org>"),
               ("List-Unsubscribe", "<https://packaging-weekly.example.org/unsubscribe?id=3321>")],
        text=T("""
            PACKAGING WEEKLY — Issue #87

            Hello and welcome to this week's issue.

            ▸ Lock files, one year later
              A look at how teams are pinning dependencies across platforms, and
              what changed since the standard was accepted.

            ▸ Choosing a build backend in 2025
              A side-by-side comparison of four popular backends: configuration,
              speed, and support for compiled extensions.

            ▸ Free online workshop: "Publishing your first package"
              Saturday 8 February, 15:00 UTC. Free for everyone; registration
              required so we can send you the link.

            ▸ Quick tip
              Use `python -m build --sdist` and inspect the tarball before you
              upload — it's the easiest way to catch missing data files.

            You are receiving this email because you subscribed at
            packaging-weekly.example.org. Unsubscribe any time:
            https://packaging-weekly.example.org/unsubscribe?id=3321
            """),
        html=T("""
            <html><body style="font-family:Georgia,serif;max-width:640px">
            <h1>Packaging Weekly — Issue #87</h1>
            <p>Hello and welcome to this week's issue.</p>
            <h2>Lock files, one year later</h2>
            <p>A look at how teams are pinning dependencies across platforms, and what changed
            since the standard was accepted.</p>
            <h2>Choosing a build backend in 2025</h2>
            <p>A side-by-side comparison of four popular backends: configuration, speed, and
            support for compiled extensions.</p>
            <h2>Free online workshop: “Publishing your first package”</h2>
            <p>Saturday 8 February, 15:00 UTC. Free for everyone; registration required so we can
            send you the link.</p>
            <h2>Quick tip</h2>
            <p>Use <code>python -m build --sdist</code> and inspect the tarball before you upload —
            it's the easiest way to catch missing data files.</p>
            <p style="font-size:12px;color:#777">You are receiving this email because you subscribed at
            packaging-weekly.example.org. <a href="https://packaging-weekly.example.org/unsubscribe?id=3321">Unsubscribe</a></p>
            </body></html>
            """),
    ),
    dict(
        # A legitimate invoice, with the PDF attached.
        lang="en", kind="mixed-attachment", charset="us-ascii", cte="7bit", via="direct", mua="php",
        frm=("Brightline Hosting Billing", "billing@brightline.example.com"),
        subject="Invoice 2025-0117 for your January hosting",
        phrase="charged automatically on 3 Jan",
        text=T("""
            Hello Alex,

            Thank you for your continued business. Your invoice for January is
            attached as a PDF.

              Invoice number:  2025-0117
              Period:          1 Jan 2025 - 31 Jan 2025
              Plan:            Business VPS (2 vCPU, 4 GB RAM)
              Amount:          USD 24.00
              Payment method:  card ending 4242, charged automatically on 3 Jan

            No action is needed. You can also download past invoices from the
            billing section of your control panel.

            If you have any questions about this invoice, just reply to this
            message.

            Brightline Hosting - Billing Team
            """),
        attach=dict(filename="invoice-2025-0117.pdf", ctype="application/pdf",
                    data=tiny_pdf("Brightline Hosting invoice 2025-0117")),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="internal", mua="outlook16",
        frm=("Grace Liu", "grace.liu@example.com"),
        to="platform-team@example.com",
        rcpt="alex.morgan@example.com",
        subject="Meeting notes: platform sync, 21 Jan",
        phrase="raise the threshold",
        text=T("""
            Attendees: Grace, Omar, Felix, Dana, Victor

            1. Release 4.2
               - Feature freeze moved to Friday 31 Jan.
               - Omar to finish the migration script; Felix reviews.

            2. On-call
               - Two pages last week, both from the disk-usage alert on the
                 build runners. Dana will raise the threshold and add cleanup.

            3. Budget
               - Finance needs the vendor invoices for Q4 by 7 Feb. Victor will
                 collect them and upload to the shared folder.

            4. Hiring
               - Second-round interviews for the SRE role next Tuesday.

            Action items are also in the tracker under PLAT-311.

            Grace
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="internal", mua="roundcube",
        frm=("Felix Wagner", "felix.wagner@example.com"),
        subject="Re: [spamnb PR #48] Fix tokenizer for mixed CJK/Latin text",
        phrase="produces an empty token",
        text=T("""
            Thanks for the patch, this is a nice improvement. A few comments:

            tokenizer.py, line 57:
            > if ch >= '\\u4e00' and ch <= '\\u9fff':

            This misses the CJK extension A block and the compatibility
            ideographs. unicodedata won't help much here either; maybe keep a
            small sorted table of ranges and look them up with bisect?

            tokenizer.py, line 88:
            The bigram loop produces an empty token when the input ends with a
            single CJK character. There's a failing case in the CI log.

            tests/test_tokenizer.py:
            Please add a case with full-width punctuation, e.g. a sentence ending
            in a full-width exclamation mark.

            Otherwise looks good to me. Approve once the bigram issue is fixed.

            Felix
            """),
    ),
    dict(
        lang="en", kind="html", charset="utf-8", cte="quoted-printable", via="esp", mua="esp",
        frm=("Northwind Books", "orders@northwind-books.example.com"),
        subject="Your order #NB-58213 has shipped",
        phrase="shopping with an independent bookshop",
        html=T("""
            <html><head><meta charset="utf-8"><style>td{padding:4px 8px;font-family:Arial;font-size:13px}</style></head>
            <body>
            <p>Hi Alex,</p>
            <p>Good news — your order <b>#NB-58213</b> is on its way.</p>
            <table border="0">
            <tr><td>The Patient Gardener (paperback)</td><td>1</td><td>$18.99</td></tr>
            <tr><td>Field Guide to Mountain Birds</td><td>1</td><td>$24.50</td></tr>
            <tr><td>Shipping</td><td></td><td>Free</td></tr>
            <tr><td><b>Total</b></td><td></td><td><b>$43.49</b></td></tr>
            </table>
            <p>Estimated delivery: Thursday, 23 January.</p>
            <p>Track your package: <a href="https://northwind-books.example.com/track/NB-58213">NB-58213</a></p>
            <p>Thanks for shopping with an independent bookshop!</p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="alternative", charset="us-ascii", cte="7bit", via="list", mua="php", list="hiking",
        poster="direct", rdns="{ip}.static.broadband.example", helo="www.ridgeline-hikers.example.org",
        frm=("Ridgeline Hiking Club", "newsletter@ridgeline-hikers.example.org"),
        subject="Ridgeline Hiking Club - February newsletter",
        phrase="clear fallen trees",
        text=T("""
            RIDGELINE HIKING CLUB - FEBRUARY NEWSLETTER

            Upcoming trips
              Feb 8   Snowshoe intro at Pine Lake (easy, gear available to rent)
              Feb 15  Falcon Ridge loop (moderate, 14 km)
              Feb 22  Full-moon night walk (easy, 6 km)

            Annual meeting
              Our annual general meeting is on Wednesday 26 Feb at 19:00 in the
              community hall. We will vote on the new trail maintenance budget.

            Membership renewals
              Renewals for 2025 are due by 31 March. The fee is unchanged.

            Trail work day
              Volunteers needed on March 1 to clear fallen trees on the east trail.
              Gloves and tools provided.

            Happy trails!
            The Ridgeline committee
            """),
        html=T("""
            <html><body>
            <h2>Ridgeline Hiking Club - February newsletter</h2>
            <h3>Upcoming trips</h3>
            <ul>
            <li>Feb 8 - Snowshoe intro at Pine Lake (easy, gear available to rent)</li>
            <li>Feb 15 - Falcon Ridge loop (moderate, 14 km)</li>
            <li>Feb 22 - Full-moon night walk (easy, 6 km)</li>
            </ul>
            <h3>Annual meeting</h3>
            <p>Our annual general meeting is on Wednesday 26 Feb at 19:00 in the community hall.
            We will vote on the new trail maintenance budget.</p>
            <h3>Membership renewals</h3>
            <p>Renewals for 2025 are due by 31 March. The fee is unchanged.</p>
            <h3>Trail work day</h3>
            <p>Volunteers needed on March 1 to clear fallen trees on the east trail.
            Gloves &amp; tools provided.</p>
            <p>Happy trails!<br>The Ridgeline committee</p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="base64", via="direct", mua="php",
        frm=("Hilltop Coffee Roasters", "hello@hilltop-coffee.example"),
        subject="Receipt for your Hilltop Coffee subscription",
        phrase="Ethiopia Guji – whole bean",
        text=T("""
            Thanks for your order!

            Receipt #HC-100482
            Date: 2 February 2025

              Ethiopia Guji – whole bean, 250 g       €11.50
              House espresso blend – ground, 250 g     €9.80
              Shipping                                 free
              -----------------------------------------------
              Total (incl. VAT)                       €21.30

            Your next delivery is scheduled for 2 March. You can pause, skip or
            cancel your subscription at any time from your account page.

            Happy brewing,
            The Hilltop team
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="freemail", mua="iphone",
        frm=("Linda Morgan", "linda.morgan@example.net"),
        subject="Dinner on Sunday?",
        phrase="Anything without nuts",
        text=T("""
            Hi Alex,

            Are you and Sam free for dinner on Sunday? Dad wants to try the new
            grill, so we're thinking burgers and corn around 5.

            Your sister is bringing the kids, so it'll be loud. Could you pick up
            ice cream on the way? Anything without nuts, remember Mia's allergy.

            Let me know either way.

            Love,
            Mom
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="list", mua="mutt", list="python",
        poster="direct", rdns="{ip}.dyn.broadband.example", helo="home.example.org",
        frm=("Jonas Berg", "jonas.berg@example.org"),
        subject="Re: console script not found after pip install -e",
        phrase="generated at install time",
        text=T("""
            > I have [project.scripts] in pyproject.toml but after an editable
            > install the command isn't on my PATH.

            Two usual suspects:

            1. The scripts directory of your virtualenv isn't on PATH because the
               venv isn't activated (or you installed with a different interpreter
               than the one you're running). Compare `which python` and
               `python -m pip --version`.

            2. The table name is wrong. It must be exactly:

                   [project.scripts]
                   mytool = "mytool.cli:main"

               and main must be importable without side effects.

            After fixing, re-run the editable install; the wrapper script is only
            generated at install time.

            Jonas
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="quoted-printable", via="internal", mua="outlook16",
        frm=("Dana Whitaker", "dana.whitaker@example.com"),
        to="platform-team@example.com",
        rcpt="alex.morgan@example.com",
        subject="Offsite agenda – 6 & 7 March",
        subj_enc=("utf-8", "Q"),
        phrase="Roadmap prioritisation",
        text=T("""
            Hi everyone,

            Here's the draft agenda for the offsite. Comments welcome until Friday.

            Thursday 6 March
              09:30  Coffee & welcome
              10:00  “Where we are”: product metrics review (Grace)
              11:30  Customer panel – three pilot customers join remotely
              13:00  Lunch
              14:00  Breakout sessions: onboarding, pricing, reliability
              17:00  Wrap-up

            Friday 7 March
              09:30  Roadmap prioritisation
              12:00  Team lunch, then free afternoon

            Hotel rooms are booked; confirmation numbers will come from the travel
            office. Please keep your receipts — meals outside the programme can be
            expensed as usual.

            Dana
            """),
    ),
    dict(
        lang="en", kind="html", charset="us-ascii", cte="7bit", via="webhost", mua="php",
        frm=("Lakeside Data Meetup", "noreply@lakeside-data.example.org"),
        subject="Registration confirmed: Lakeside Data Meetup, 19 February",
        phrase="text classification on a budget",
        html=T("""
            <html>
            <body style="font-family: sans-serif">
            <h2>You're registered!</h2>
            <p>Hi Alex,</p>
            <p>Thanks for signing up for <b>Lakeside Data Meetup #34</b>.</p>
            <p><b>When:</b> Wednesday 19 February, 18:30 - 21:00<br>
            <b>Where:</b> Room 2.14, Innovation Centre, 10 Harbour Street</p>
            <p>Talks:</p>
            <ul>
            <li>Naive Bayes is not dead: text classification on a budget</li>
            <li>Lightning talk: cleaning messy CSV files</li>
            </ul>
            <p>Pizza &amp; drinks are provided free of charge by our host.</p>
            <p>Can't make it? <a href="https://lakeside-data.example.org/events/34/cancel">Release your spot</a>
            so someone on the waiting list can come.</p>
            </body>
            </html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="list", mua="thunderbird", list="lug",
        poster="freemail",
        frm=("Ines Duarte", "ines.duarte@example.net"),
        subject="Re: btrfs scrub reports checksum errors after power loss",
        phrase="restore those files from backup",
        text=T("""
            > scrub found 3 uncorrectable errors on /home. Is the disk dying?

            Not necessarily. Checksum errors right after an unclean shutdown are
            often just files that were being written at that moment. Before
            replacing anything:

              - check SMART: smartctl -a /dev/sdX (look at reallocated and pending
                sector counts)
              - find the affected files: dmesg | grep -i 'checksum error' will list
                the inode and path
              - restore those files from backup, then run scrub again

            If SMART is clean and a second scrub is clean, I wouldn't worry. If the
            counts keep rising, replace the drive.

            Ines
            """),
    ),
    dict(
        lang="en", kind="mixed-attachment", charset="us-ascii", cte="7bit", via="freemail", mua="apple",
        frm=("Sam Morgan", "sam.morgan@example.net"),
        subject="Photo from the lake trail",
        phrase="see the heron",
        text=T("""
            Hey,

            Here's the photo from Sunday I promised. Not the best quality, my
            phone was almost dead, but you can see the heron on the left.

            We should do that trail again in spring when the path isn't icy.

            Sam
            """),
        attach=dict(filename="lake-trail.png", ctype="image/png", data=tiny_png()),
    ),
    dict(
        # Legitimate "confirm your email" mail: same words as phishing.
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="webhost", mua="none",
        frm=("Lakeside Data Meetup", "noreply@lakeside-data.example.org"),
        subject="Please confirm your email address",
        phrase="safely ignore this message",
        text=T("""
            Hi Alex,

            Thanks for creating an account on lakeside-data.example.org.

            To finish signing up, please confirm your email address by opening
            this link within 7 days:

            https://lakeside-data.example.org/account/confirm?token=8d1e0c57b2

            If you didn't create an account, you can safely ignore this message;
            no account will be activated without confirmation.

            - The Lakeside Data organisers
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="8bit", via="internal", mua="outlook16",
        frm=("Víctor Álvarez", "victor.alvarez@example.com"),
        from_enc=("utf-8", "Q"),
        to="Grace Liu <grace.liu@example.com>",
        subject="Q4 vendor invoices – please approve by Friday",
        subj_enc=("utf-8", "Q"),
        phrase="after the office move",
        text=T("""
            Hi Grace,

            I've uploaded the Q4 vendor invoices to Finance/2024-Q4/invoices. Three
            of them need your approval before I can send them to accounts payable:

              • Brightline Hosting – 3 invoices, USD 72.00 total (Oct–Dec)
              • Northwind Books – team library order, USD 311.40
              • Cedar Cleaning Co. – office cleaning, USD 1,150.00

            The cleaning invoice is higher than usual because it includes the
            deep clean after the office move in November — that was approved in
            the facilities budget.

            You can approve them directly in the finance tool; the request number
            is FIN-2291.

            Thanks,
            Víctor
            """),
    ),
    dict(
        lang="en", kind="alternative", charset="utf-8", cte="base64", via="esp", mua="esp",
        frm=("Open Source Reading Circle", "digest@reading-circle.example.org"),
        subject="Weekly digest: free ebook for members, and March reading list",
        phrase="discussion call with the author",
        extra=[("List-Id", "Reading Circle digest <digest.reading-circle.example.org>"),
               ("List-Unsubscribe", "<https://reading-circle.example.org/prefs>")],
        text=T("""
            Hello reader,

            This week's highlights:

            📚 Members get a free ebook this month: "Practical Regular Expressions",
               kindly donated by the author. Download it from your member page.

            🗓 March reading list
               • Week 1 – chapters 1–3 of "Systems You Can Reason About"
               • Week 2 – chapters 4–6
               • Week 3 – discussion call with the author (Thursday 20:00 CET)

            💬 Forum thread of the week: "How do you take notes on technical books?"

            Thanks for being part of the circle.

            You're receiving this because you're a member of the Open Source
            Reading Circle. Manage preferences: https://reading-circle.example.org/prefs
            """),
        html=T("""
            <html><body>
            <p>Hello reader,</p>
            <p>This week's highlights:</p>
            <p>📚 Members get a <b>free ebook</b> this month: <i>Practical Regular Expressions</i>,
            kindly donated by the author. Download it from your member page.</p>
            <p>🗓 <b>March reading list</b></p>
            <ul>
            <li>Week 1 – chapters 1–3 of <i>Systems You Can Reason About</i></li>
            <li>Week 2 – chapters 4–6</li>
            <li>Week 3 – discussion call with the author (Thursday 20:00 CET)</li>
            </ul>
            <p>💬 Forum thread of the week: “How do you take notes on technical books?”</p>
            <p>Thanks for being part of the circle.</p>
            <p><small><a href="https://reading-circle.example.org/prefs">Manage preferences</a></small></p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="internal", mua="none",
        frm=("Learning & Development", "training@example.com"),
        subject="Your training course registration: Secure Coding Basics",
        phrase="central training budget",
        text=T("""
            Hi Alex,

            You are registered for the internal training course "Secure Coding
            Basics".

              Dates:    Tue 11 and Thu 13 March, 09:00-12:00
              Room:     Training room B, 3rd floor
              Trainer:  Omar Haddad

            The course is free for employees; the cost is covered by the
            central training budget. Please bring your laptop with the dev
            environment set up as described in the prep guide on the wiki.

            If you can no longer attend, cancel at least 48 hours in advance so
            someone from the waiting list can take your place.

            Learning & Development
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="list", mua="roundcube", list="hiking",
        poster="internal",
        frm=("Tom Reyes", "tom.reyes@example.com"),
        subject="Found: blue water bottle at Falcon Ridge",
        phrase="blue steel water bottle",
        text=T("""
            Hi all,

            Someone left a blue steel water bottle with a mountain sticker at the
            lunch spot on Saturday. I've got it at home.

            Reply off-list and I'll bring it to the next hike or the annual
            meeting.

            Tom
            """),
    ),
]

MAIL_HAM_ZH = [
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="list", mua="foxmail7", list="ds-course",
        poster="univ",
        frm=("张老师", "zhang.hua@cs.univ.example"),
        subject="数据结构课程期中考试安排",
        phrase="可携带一张A4手写提纲",
        text=T("""
            各位同学：

            数据结构课程期中考试安排如下：

              时间：11月14日（周四）下午2:00-4:00
              地点：教学楼A303、A305（按学号分考场，名单见课程网站）
              范围：第一章至第六章（线性表、栈和队列、串、树与二叉树）
              形式：闭卷，可携带一张A4手写提纲

            上周的作业三已经批改完毕，成绩已上传。作业中普遍的问题是递归出口写错，
            请大家对照参考答案自查。

            本周四的习题课照常进行，有问题可以在答疑时间来办公室找我。

            张老师
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="8bit", via="univ", mua="coremail",
        frm=("刘洋", "liu.yang@lab.univ.example"),
        to="nlp-lab@lab.univ.example",
        subject="周三组会纪要（11月20日）",
        phrase="在登记表上预约",
        text=T("""
            大家好，

            今天组会的纪要如下：

            1. 王磊汇报了图神经网络实验的进展，在小数据集上准确率提升了2.3个点，
               下周补充消融实验。
            2. 陈晓的论文初稿已经完成，请大家本周内每人至少看一节，把意见写在共享文档里。
            3. 服务器GPU使用需要提前在登记表上预约，最近有人长时间占用不释放，请注意。
            4. 下周三组会改到下午三点，地点不变。

            如有遗漏请补充。

            刘洋
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="xinmail", mua="foxmail7",
        frm=("周明", "zhou.ming@xinmail.example"),
        to="chen.xiao@lab.univ.example",
        subject="论文初稿修改意见",
        phrase="符号不统一",
        text=T("""
            小陈：

            论文初稿看过了，整体思路清楚，实验部分比上一版扎实很多。几点意见：

            一、摘要太长，控制在200字以内，突出贡献，不要写背景。
            二、第三节的公式(5)和(6)符号不统一，请统一用粗体表示向量。
            三、相关工作部分漏了近两年的几篇重要文献，我把题目发到群里了。
            四、图4的纵坐标没有单位，字号也太小，打印出来看不清。
            五、结论部分不要夸大，“显著优于所有方法”改成“在三个数据集上优于对比方法”。

            修改后下周一前发我，我们周二当面再过一遍。

            周明
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="8bit", via="univ", mua="outlook",
        frm=("实验室管理办公室", "lab-office@chem.univ.example"),
        to="lab-heads@chem.univ.example",
        subject="关于开展实验室安全检查的通知",
        phrase="废液是否按类别回收",
        text=T("""
            各实验室负责人：

            根据学院安排，将于下周二（12月3日）上午开展年度实验室安全检查，重点检查以下内容：

              （一）危险化学品的领用登记和存放情况；
              （二）通风橱、灭火器、洗眼器等设施是否完好；
              （三）实验记录本是否规范填写；
              （四）废液是否按类别回收，标签是否清楚。

            请各实验室提前自查，检查当天请安排一名老师或高年级研究生在场。

            实验室管理办公室
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="xinmail", mua="oe",
        frm=("妈妈", "mama.wang@xinmail.example"),
        to="wang.hao@example.com",
        subject="周末回家吃饭吗",
        phrase="还买了你爱吃的鲫鱼",
        text=T("""
            儿子：

            这周末回家吃饭吗？你爸说想做红烧肉，还买了你爱吃的鲫鱼。

            天冷了，记得多穿点，别老是熬夜写代码。上次说的那件厚外套买了没有？
            没买的话我在网上给你买一件寄过去。

            你姐姐下个月要搬家，到时候你有空的话过去帮帮忙。

            回个信，别让我们等。

            妈妈
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="utf-8", cte="8bit", via="xinmail", mua="coremail",
        frm=("陈小雨", "xiaoyu.chen@xinmail.example"),
        from_enc=("utf-8", "B"),
        to="class2019@example.com",
        subject="周六聚餐地点定了！",
        subj_enc=("utf-8", "B"),
        phrase="学校东门对面那家湘菜馆",
        text=T("""
            各位：

            周六晚上的聚餐地点定了，就在学校东门对面那家湘菜馆，二楼包间。

            时间：周六晚上6:30
            人数：目前报名的有11个人，还没回复的今天之内告诉我一声～

            老规矩AA，吃完我统一算账，大概每人80左右。
            饭后想去唱歌的可以一起，不想去的也没关系😄

            小雨
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="utf-8", cte="base64", via="list", mua="thunderbird", list="python-cn",
        poster="direct",
        frm=("赵磊", "zhao.lei@example.org"),
        from_enc=("utf-8", "B"),
        subject="Re: 读取GB2312邮件时出现乱码",
        subj_enc=("utf-8", "B"),
        phrase="邮件文件本身是字节流",
        text=T("""
            > 用 open(path).read() 读中文邮件，有的文件直接报 UnicodeDecodeError。

            邮件文件本身是字节流，不应该用文本模式直接打开。建议这样：

                import email
                from email import policy

                with open(path, "rb") as f:
                    msg = email.message_from_binary_file(f, policy=policy.default)
                body = msg.get_body(preferencelist=("plain", "html"))
                text = body.get_content()

            get_content() 会根据 Content-Transfer-Encoding 和 charset 自动解码。
            另外很多老邮件声明的是 gb2312，但实际上用了 GBK 才有的字，
            解码时可以把 gb2312 当成 gbk 处理，能少掉很多乱码。

            赵磊
            """),
    ),
    dict(
        # Legitimate mail about 发票 (reimbursement rules).
        lang="zh", kind="alternative", charset="gb2312", cte="base64", via="univ", mua="outlook",
        frm=("孙丽", "sun.li@finance.univ.example"),
        to="all-staff@univ.example",
        rcpt="li.wei@example.com",
        subject="关于差旅费报销所需发票的说明",
        phrase="同一张发票不得重复报销",
        text=T("""
            各位老师、同学：

            近期报销中发现不少发票不符合要求，退回重办耽误了大家时间，现将注意事项说明如下：

            1. 增值税普通发票抬头必须写学校全称，并填写纳税人识别号；
            2. 电子发票请打印后在背面签字，同一张发票不得重复报销；
            3. 住宿费发票需附酒店消费明细，火车票、机票行程单须与出差审批单一致；
            4. 发票开具日期应在出差期间或结束后一个月内。

            报销系统每周二、周四开放预约，请提前在网上填报。

            财务处 孙丽
            """),
        html=T("""
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head>
            <body style="font-size:14px">
            <p>各位老师、同学：</p>
            <p>近期报销中发现不少发票不符合要求，退回重办耽误了大家时间，现将注意事项说明如下：</p>
            <ol>
            <li>增值税普通发票抬头必须写学校全称，并填写纳税人识别号；</li>
            <li>电子发票请打印后在背面签字，同一张发票不得重复报销；</li>
            <li>住宿费发票需附酒店消费明细，火车票、机票行程单须与出差审批单一致；</li>
            <li>发票开具日期应在出差期间或结束后一个月内。</li>
            </ol>
            <p>报销系统每周二、周四开放预约，请提前在网上填报。</p>
            <p>财务处 孙丽</p>
            </body></html>
            """),
    ),
    dict(
        # GBK: the secretary's name 喆 is not in GB2312.
        lang="zh", kind="plain", charset="gbk", cte="base64", via="univ", mua="foxmail",
        frm=("李喆", "li.zhe@cs.univ.example"),
        from_enc=("gbk", "B"),
        to="grad2025@cs.univ.example",
        subject="硕士论文答辩时间安排（第二组）",
        subj_enc=("gbk", "B"),
        phrase="答辩秘书：李喆",
        text=T("""
            各位同学：

            第二组硕士论文答辩定于5月28日上午8:30在信息楼502会议室举行，顺序如下：

              1. 王思远  基于深度学习的遥感图像分割
              2. 黄婷婷  面向中文短文本的情感分类方法研究
              3. 吴昊    分布式存储系统中的数据修复策略
              4. 郑可欣  垃圾邮件过滤中的特征选择方法比较

            每人汇报15分钟，提问10分钟。请提前半小时到场拷贝PPT，并把打印好的论文带五份。

            答辩秘书：李喆
            """),
    ),
    dict(
        # GBK: the baby's name 堃 is not in GB2312.
        lang="zh", kind="plain", charset="gbk", cte="8bit", via="xinmail", mua="foxmail",
        frm=("王丽华", "wang.lihua@xinmail.example"),
        from_enc=("gbk", "B"),
        to="wang.hao@example.com",
        subject="堃堃满月酒的安排",
        subj_enc=("gbk", "B"),
        phrase="堃堃下个月三号满月",
        text=T("""
            弟弟、弟妹：

            堃堃下个月三号满月，我们打算中午在家附近的酒店摆几桌，就请自家亲戚和几个好朋友。

            妈说你们工作忙，能回来最好，实在回不来也没关系，视频的时候让孩子给你们看看。
            上次你们寄来的小衣服很合身，堃堃穿着可好看了。

            酒店地址和时间定了再告诉你们。

            大姐
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="big5", cte="base64", via="freemail", mua="webmail",
        frm=("林美玲", "lin.meiling@example.net"),
        to="lin-family@example.net",
        rcpt="li.wei@example.com",
        subject="阿嬤八十歲生日聚餐",
        phrase="大家合送一台按摩椅",
        text=T("""
            各位家人：

            阿嬤下個月滿八十歲，大家討論後決定在台中老家附近的餐廳辦一桌生日宴。

            日期：三月九日（星期日）中午十二點
            地點：餐廳訂好後再通知
            禮物：大家合送一台按摩椅，每家分攤，細節我再算給大家

            請大家盡量回來，阿嬤最近常常說想看看曾孫。
            收到請回覆，方便我訂位。

            美玲
            """),
    ),
    dict(
        lang="zh", kind="html", charset="utf-8", cte="quoted-printable", via="esp", mua="esp",
        frm=("开源技术周刊", "weekly@oss-weekly.example.org"),
        from_enc=("utf-8", "Q"),
        subject="开源技术周刊 第12期：文本分类入门与实践",
        subj_enc=("utf-8", "Q"),
        phrase="依然是非常可靠的基线",
        extra=[("List-Id", "OSS Weekly <weekly.oss-weekly.example.org>"),
               ("List-Unsubscribe", "<https://oss-weekly.example.org/unsubscribe>")],
        html=T("""
            <html><head><meta charset="utf-8"><title>开源技术周刊 第12期</title></head>
            <body style="font-family:sans-serif;line-height:1.6">
            <h2>开源技术周刊 · 第12期</h2>
            <h3>本期专题：文本分类入门与实践</h3>
            <p>朴素贝叶斯虽然简单，但在垃圾邮件过滤等任务上依然是非常可靠的基线。本期文章从分词、特征选择讲到拉普拉斯平滑，并附完整代码。</p>
            <h3>工具推荐</h3>
            <ul>
            <li>一款支持多种编码自动识别的命令行工具，处理老旧语料时很有用</li>
            <li>轻量级的数据标注网页应用，可本地部署</li>
            </ul>
            <h3>活动预告</h3>
            <p>本月线上分享会将于周六晚八点举行，免费参加，欢迎订阅者报名。</p>
            <p style="font-size:12px;color:#888">您收到此邮件是因为您订阅了开源技术周刊。<a href="https://oss-weekly.example.org/unsubscribe">退订</a></p>
            </body></html>
            """),
    ),
    dict(
        # The attachment has a Chinese file name (RFC 2231 encoded, GB2312).
        lang="zh", kind="mixed-attachment", charset="gb2312", cte="8bit", via="univ", mua="foxmail7",
        frm=("研讨会会务组", "conference@cs.univ.example"),
        subject="第五届自然语言处理青年学者研讨会议程",
        phrase="学术交流中心一楼大厅",
        text=T("""
            各位参会代表：

            第五届自然语言处理青年学者研讨会将于4月19日至20日在学术交流中心举行。
            会议议程见附件，请查收。

            报到时间：4月18日下午2:00-6:00，地点为学术交流中心一楼大厅。
            会议期间提供午餐和晚餐，需要开具会议注册费发票的代表，请在报到时
            向会务组提供单位名称和纳税人识别号。

            如有疑问请回复本邮件。

            会务组
            """),
        attach=dict(filename="会议议程.pdf", filename_charset="gb2312",
                    ctype="application/pdf", data=tiny_pdf("workshop agenda")),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="8bit", via="univ", mua="foxmail7",
        frm=("周浩", "zhou.hao@lab.univ.example"),
        to="nlp-lab@lab.univ.example",
        subject="实验室服务器本周六停机维护",
        phrase="更换硬盘和升级驱动",
        text=T("""
            各位同学：

            实验室的两台GPU服务器（gpu01、gpu02）将于本周六上午9点至下午5点停机维护，
            主要是更换硬盘和升级驱动。

            请大家在周五晚上之前保存好自己的实验结果，正在运行的任务周六早上会被强制结束。
            /home 目录下的数据不会受影响，但 /tmp 和 /scratch 会被清空。

            维护完成后我会在群里通知。

            周浩
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="quoted-printable", via="direct", mua="php",
        tls=False,
        frm=("全国机器学习研讨会组委会", "cfp@nmlw.example.org"),
        subject="征稿截止日期提醒：第十届全国机器学习研讨会",
        phrase="篇幅不超过8页",
        text=T("""
            尊敬的作者：

            第十届全国机器学习研讨会的论文投稿截止日期为2025年3月31日（北京时间23:59），不再延期。

            投稿须知：
            1. 论文须为未公开发表的原创成果，篇幅不超过8页（含参考文献）；
            2. 请使用会议网站提供的中文模板排版；
            3. 录用论文将推荐至期刊特刊，作者需至少一人注册参会并作报告。

            投稿系统：https://nmlw.example.org/submit

            组委会
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="utf-8", cte="8bit", via="list", mua="mutt", list="linux-cn",
        poster="freemail",
        frm=("黄志强", "huang.zq@example.net"),
        from_enc=("utf-8", "Q"),
        subject="Re: 编译内核时报错：找不到 openssl 头文件",
        subj_enc=("utf-8", "B"),
        phrase="不是运行库",
        text=T("""
            > make 到一半报 fatal error: openssl/opensslv.h: No such file or directory

            缺的是 OpenSSL 的开发包，不是运行库。Debian/Ubuntu 上装：

                sudo apt install libssl-dev

            Fedora 上是 openssl-devel。装完之后不用重新配置，直接再 make 一次就行。

            另外建议编译时加上 -j$(nproc)，速度会快很多。
            如果还有别的依赖缺失，可以先装 build-essential、flex、bison、libelf-dev 这几个。

            黄志强
            """),
    ),
    dict(
        # Legitimate 电子发票 notice from a shop.
        lang="zh", kind="alternative", charset="utf-8", cte="quoted-printable", via="esp", mua="esp",
        frm=("云杉书店", "service@yunshan-books.example.com"),
        from_enc=("utf-8", "Q"),
        subject="您的订单电子发票已开具",
        subj_enc=("utf-8", "Q"),
        phrase="请在30天内申请重开",
        text=T("""
            尊敬的顾客，您好：

            您在云杉书店的订单（订单号：YS20250113008）电子发票已开具，发票信息如下：

              发票类型：增值税电子普通发票
              发票抬头：个人
              开票金额：￥156.80
              开票日期：2025年1月15日

            您可以登录“我的订单—发票管理”页面下载PDF版发票。
            如发票信息有误，请在30天内申请重开。

            感谢您的惠顾！
            云杉书店客服中心
            """),
        html=T("""
            <html><head><meta charset="utf-8"></head><body>
            <p>尊敬的顾客，您好：</p>
            <p>您在云杉书店的订单（订单号：<b>YS20250113008</b>）电子发票已开具，发票信息如下：</p>
            <table border="1" cellspacing="0" cellpadding="4">
            <tr><td>发票类型</td><td>增值税电子普通发票</td></tr>
            <tr><td>发票抬头</td><td>个人</td></tr>
            <tr><td>开票金额</td><td>￥156.80</td></tr>
            <tr><td>开票日期</td><td>2025年1月15日</td></tr>
            </table>
            <p>您可以登录“我的订单—发票管理”页面下载PDF版发票。如发票信息有误，请在30天内申请重开。</p>
            <p>感谢您的惠顾！<br>云杉书店客服中心</p>
            </body></html>
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="univ", mua="foxmail",
        frm=("吴婷", "wu.ting@univ.example"),
        to="os2024@lists.univ.example",
        rcpt="li.wei@example.com",
        subject="【操作系统】作业三截止时间延长",
        phrase="平均周转时间对比",
        text=T("""
            同学们好：

            考虑到下周有两门课程期中考试，作业三（进程调度模拟）的截止时间延长到
            12月8日（周日）晚上11:59，提交方式不变。

            几点提醒：
            - 代码请附上简单的README，说明编译和运行方法；
            - 实验报告中需要给出至少三种调度算法的平均周转时间对比；
            - 抄袭一经发现，本次作业按零分处理。

            答疑时间：周三下午4点，计算机楼412。

            助教 吴婷
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="8bit", via="xinmail", mua="coremail",
        frm=("郭鹏", "guo.peng@xinmail.example"),
        to="class2015@example.com",
        rcpt="li.wei@example.com",
        subject="毕业十周年同学聚会报名",
        phrase="先参观校园",
        text=T("""
            各位老同学：

            转眼毕业十年了！经过几位同学商量，准备在国庆假期举办十周年聚会：

              时间：10月3日（暂定）
              地点：回母校，先参观校园，晚上在校外聚餐
              费用：每人300元左右，多退少补

            报名请回复邮件，注明是否带家属、是否需要安排住宿。
            也请大家帮忙联系一下没在群里的同学。

            期待与大家重逢！

            班长 郭鹏
            """),
    ),
    dict(
        lang="zh", kind="html", charset="gb2312", cte="base64", via="univ", mua="outlook",
        frm=("图书馆", "library@univ.example"),
        to="all-staff@univ.example",
        rcpt="li.wei@example.com",
        subject="图书馆寒假开放时间通知",
        phrase="电子资源可正常访问",
        html=T("""
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head>
            <body>
            <p>全校师生：</p>
            <p>寒假期间（1月18日至2月16日）图书馆开放时间调整如下：</p>
            <table border="1" cellpadding="4">
            <tr><td>1月18日&ndash;1月25日</td><td>8:30-17:00</td></tr>
            <tr><td>1月26日&ndash;2月5日</td><td>闭馆</td></tr>
            <tr><td>2月6日&ndash;2月16日</td><td>8:30-17:00</td></tr>
            </table>
            <p>闭馆期间电子资源可正常访问，校外访问请使用统一身份认证登录。</p>
            <p>寒假借书期限自动延长至2月28日，请读者合理安排。</p>
            <p>图书馆</p>
            </body></html>
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gbk", cte="base64", via="internal", mua="outlook16",
        frm=("何静", "he.jing@example.com"),
        to="proj-team@example.com",
        rcpt="li.wei@example.com",
        subject="项目周报（第47周）",
        subj_enc=("gbk", "B"),
        phrase="已退回重开",
        text=T("""
            各位：

            本周项目进展汇总如下：

            【已完成】
            - 用户登录模块联调完成，测试通过率98%
            - 数据迁移脚本已在预发布环境验证

            【进行中】
            - 报表导出功能，预计下周三提测
            - 性能优化：首页接口平均响应时间从820ms降到450ms，目标300ms

            【风险】
            - 第三方短信接口供应商合同尚未续签，需商务同事跟进
            - 供应商发来的11月服务费发票金额有误，已退回重开

            下周一上午十点例会，请各模块负责人准备好进度。

            何静
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="big5", cte="8bit", via="cloud", mua="outlook",
        frm=("陳志明", "chan.chiming@example.net"),
        to="it-team@example.net",
        rcpt="li.wei@example.com",
        subject="關於資料庫遷移的時間安排",
        phrase="回滾方案已演練過一次",
        text=T("""
            各位同事：

            資料庫遷移原定本週五晚上進行，考慮到月底結算，決定延後到下週六凌晨兩點開始，
            預計停機四小時。

            遷移前請各組確認：
            1. 排程任務已暫停；
            2. 應用程式的連線字串已更新為新主機；
            3. 回滾方案已演練過一次。

            如有問題請在週三前提出。

            陳志明
            IT 部
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="xinmail", mua="oe",
        frm=("爸爸", "wang.jianguo@xinmail.example"),
        to="wang.xue@example.com",
        subject="体检报告出来了",
        phrase="注意饮食、多走路就行",
        text=T("""
            女儿：

            我的体检报告出来了，大部分指标都正常，就是血脂稍微有点高，
            医生说不用吃药，注意饮食、多走路就行。你不用担心。

            你妈让我问你，过年的火车票买好了没有？要是不好买就早点说，
            我让你表哥开车去接你。

            工作别太累，按时吃饭。

            爸爸
            """),
    ),
]

# --- mbox/spam.mbox ---------------------------------------------------------

# Added later to the training set: more of the everyday mail a person keeps,
# for the same reason as MAIL_SPAM_MORE.
MAIL_HAM_MORE = [
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="internal", mua="thunderbird",
        frm=("Omar Haddad", "omar.haddad@example.com"),
        to="platform-team@example.com",
        rcpt="alex.morgan@example.com",
        subject="Maintenance window Thursday 21:00-22:00: database failover test",
        phrase="fail over the primary database",
        text=T("""
            Hi all,

            On Thursday between 21:00 and 22:00 we will fail over the primary database
            to the standby in the second zone, as planned in the last ops review.

            What to expect:
            - Writes pause for up to two minutes during the switch.
            - The status page will show "degraded" for the whole window.
            - No deploys from 20:30 until I post the all-clear in the ops channel.

            Rollback: if replication lag stays above 30 seconds we switch back and
            try again next week.

            Felix is on call with me. Ping us if you see errors in your service
            dashboards afterwards.

            Thanks,
            Omar
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="quoted-printable", via="internal", mua="outlook16",
        frm=("Dana Whitaker", "dana.whitaker@example.com"),
        to="platform-team@example.com",
        rcpt="alex.morgan@example.com",
        subject="Postmortem: login errors on 4 Feb",
        phrase="the expired intermediate certificate",
        text=T("""
            Hi team,

            Here is the summary of Tuesday’s incident; the full write-up is in the wiki.

            Impact: 38 minutes of failed logins for about 12% of users (09:12–09:50).
            Root cause: the expired intermediate certificate on one of the three
            auth nodes. The health check did not test the full chain, so the node
            stayed in the pool.

            What went well: the alert fired within four minutes; the rollback
            runbook worked.
            What we change:
            1. Certificate expiry checks for the whole chain (owner: Felix).
            2. Health check performs a real TLS handshake (owner: Alex).
            3. Review on-call handover notes in Thursday’s meeting.

            Thanks to everyone who helped.
            Dana
            """),
    ),
    dict(
        lang="en", kind="alternative", charset="utf-8", cte="quoted-printable", via="esp", mua="esp",
        frm=("Harbour City Transit", "receipts@harbourcity-transit.example"),
        subject="Receipt: Transit card top-up €20.00",
        subj_enc=("utf-8", "Q"),
        phrase="Your transit card was topped up",
        text=T("""
            Hi Alex,

            Your transit card was topped up. Here is your receipt.

              Card:        ending 4471
              Amount:      €20.00
              Paid with:   Visa ending 0932
              Date:        9 Feb 2025, 08:14
              New balance: €23.60

            Last rides: Lakeside → Harbour Street (€2.40), Harbour Street → Central (€1.80).

            Questions about a charge? Reply to this email or visit the help pages.

            Harbour City Transit
            """),
        html=T("""
            <html><body style="font-family:Helvetica,Arial;font-size:14px">
            <p>Hi Alex,</p>
            <p>Your transit card was topped up. Here is your receipt.</p>
            <table cellpadding="4">
            <tr><td>Card</td><td>ending 4471</td></tr>
            <tr><td>Amount</td><td>€20.00</td></tr>
            <tr><td>Paid with</td><td>Visa ending 0932</td></tr>
            <tr><td>Date</td><td>9 Feb 2025, 08:14</td></tr>
            <tr><td>New balance</td><td>€23.60</td></tr>
            </table>
            <p>Last rides: Lakeside → Harbour Street (€2.40), Harbour Street → Central (€1.80).</p>
            <p>Questions about a charge? Reply to this email or visit the help pages.</p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="freemail", mua="webmail",
        frm=("Linda Morgan", "linda.morgan@example.net"),
        subject="Thanksgiving at our place?",
        phrase="Dad wants to try smoking the turkey",
        text=T("""
            Hi honey,

            Your dad and I would love to have everyone here for Thanksgiving this
            year. Sam and Priya said they can come on Wednesday night.

            Dad wants to try smoking the turkey (pray for us). Could you bring the
            sweet potato dish you made last year? Everybody still talks about it.

            Let me know if you'll drive or if we should pick you up at the station.

            Love you,
            Mom

            Sent from my iPhone
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="list", mua="apple", list="python",
        poster="freemail",
        frm=("Ines Duarte", "ines.duarte@example.net"),
        subject="Re: typing.Protocol vs ABC for a plugin interface",
        phrase="A Protocol gives you structural",
        text=T("""
            On 12/02 Ruth Okafor wrote:
            > Should plugins subclass an ABC, or is a Protocol enough?

            It depends on who writes the plugins. A Protocol gives you structural
            typing: any class with the right methods fits, and the type checker
            tells you when one doesn't. Nothing has to import your package.

            An ABC is better when you want a runtime check (isinstance without
            @runtime_checkable) or shared default methods.

            For our project we ended up with both: a Protocol for the public
            interface and a small ABC with helpers that plugin authors may use.

            Ines
            """),
    ),
    dict(
        lang="en", kind="html", charset="us-ascii", cte="7bit", via="esp", mua="esp",
        frm=("Lakeside Savings Bank", "statements@lakeside-savings.example"),
        subject="Your December statement is ready",
        phrase="we will never ask for your password",
        html=T("""
            <html><body style="font-family:Arial;font-size:14px;color:#222">
            <p>Dear Alex Morgan,</p>
            <p>Your statement for the period ending 31 December for your checking account
            ending in 2210 is now available.</p>
            <p>To view it, open our app or type our address into your browser yourself and
            go to Documents &gt; Statements. We do not include links to sign in.</p>
            <p>Remember: we will never ask for your password, PIN or one-time codes by email
            or phone.</p>
            <p>Lakeside Savings Bank<br>Customer Service</p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="direct", mua="none",
        tls=False,
        helo="mail.riverside-library.example.org", rdns="mail.riverside-library.example.org",
        frm=("Riverside Public Library", "noreply@riverside-library.example.org"),
        subject="Your hold is ready for pickup",
        phrase="held for you until",
        text=T("""
            Hello Alex Morgan,

            The following item is ready for pickup at the Riverside Main Branch:

              "The Overstory" by Richard Powers

            It will be held for you until Saturday, 15 February. Bring your library
            card or the app's barcode to the hold shelf near the entrance.

            Renew or manage your holds from your account on the library website.

            Riverside Public Library
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="8bit", via="cloud", mua="outlook16",
        frm=("Jürgen Weiß", "juergen.weiss@example.net"),
        to="Alex Morgan <alex.morgan@example.com>",
        subject="Quarterly review with the partner team – agenda",
        subj_enc=("utf-8", "Q"),
        phrase="Review the data exchange milestones",
        text=T("""
            Dear Alex,

            Thank you for the notes from Zürich. For our quarterly review on
            12 March I propose this agenda:

            1. Review the data exchange milestones (API migration, end of Q2)
            2. Baseline model: results of the comparison
            3. Cost estimate and budget for the second half of the year
            4. Next steps and meeting dates

            We have booked a room in Genève from 10:00 to 13:00; lunch is
            included. Please let me know who from your team will attend.

            Kind regards,
            Jürgen
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="internal", mua="foxmail7",
        frm=("运维组", "ops@example.com"),
        to="all@example.com",
        rcpt="li.wei@example.com",
        subject="今晚系统升级维护通知（22:00-23:00）",
        phrase="期间系统将暂停访问",
        text=T("""
            各位同事：

            为提升系统稳定性，运维组定于今晚22:00至23:00对内部系统进行升级维护，
            期间系统将暂停访问，具体影响如下：

              1. 报销系统、考勤系统无法登录；
              2. 内部代码仓库只读；
              3. 邮件收发不受影响。

            升级完成后会在工作群通知大家。如升级后发现问题，请联系运维值班人员。

            给大家带来不便，敬请谅解。

            运维组
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gbk", cte="8bit", via="xinmail", mua="oe",
        frm=("王丽华", "wang.lihua@xinmail.example"),
        to="wang.hao@example.com",
        subj_enc=("gbk", "B"),
        subject="中秋节回家的车票买好了",
        phrase="堃堃也长高了不少",
        text=T("""
            浩浩：

            中秋节回家的车票我已经帮你们买好了，
            九月十六号上午十点的高铁，到站大概下午两点，你爸开车去接。

            你妈说这次做你爱吃的红烧肉和糖醋排骨，
            再去买点月饼，你们就别带东西了。

            堃堃也长高了不少，上次视频都快认不出来了。
            路上注意安全，到了给家里打个电话。

            姐
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="webhost", mua="php",
        frm=("云杉书店", "service@yunshan-books.example.com"),
        subject="您的订单已发货（订单号：YS20250118047）",
        phrase="您购买的商品已交由快递发出",
        text=T("""
            亲爱的读者：

            您好！您在云杉书店的订单 YS20250118047 已经发货，
            您购买的商品已交由快递发出，预计两到三天送达。

              《数据结构与算法分析》  1本
              《深入理解计算机系统》  1本

            快递公司：顺达快递　运单号：SD7721904418
            如有问题，请回复本邮件或在“我的订单”中联系客服。

            感谢您的支持！
            云杉书店
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="quoted-printable", via="univ", mua="foxmail7",
        frm=("教务办公室", "jiaowu@cs.univ.example"),
        to="undisclosed-recipients:;",
        rcpt="li.wei@example.com",
        subject="关于召开学期末教学工作会议的通知",
        phrase="请各位老师准时参加",
        text=T("""
            各位老师：

            经学院研究，定于1月10日（周五）下午2:30在计算机楼报告厅召开学期末教学工作会议，
            请各位老师准时参加。

            会议议程：
              一、本学期教学工作总结
              二、期末考试安排及监考要求
              三、下学期课程安排与教材征订
              四、研究生论文开题工作布置

            如因故不能参加，请提前向教务办公室请假。

            计算机学院教务办公室
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="utf-8", cte="base64", via="list", mua="roundcube", list="python-cn",
        poster="freemail",
        frm=("黄志强", "huang.zq@example.net"),
        subject="Re: jieba 分词自定义词典不生效",
        subj_enc=("utf-8", "B"),
        phrase="词典文件必须是 UTF-8 编码",
        text=T("""
            > 用 load_userdict 加载了自己的词典，但是“自然语言处理”还是被切开了。

            先检查两点：

            1. 词典文件必须是 UTF-8 编码，每行“词语 词频 词性”，词频可以省略；
            2. 词频太低的话，分词时可能还是会被切开，可以把词频调高，
               或者用 jieba.suggest_freq("自然语言处理", True) 调整。

            另外 load_userdict 要在第一次分词之前调用，否则要重新初始化。

            黄志强
            """),
    ),
    dict(
        # Legitimate mail about 发票 and 报销 again.
        lang="zh", kind="plain", charset="gb2312", cte="8bit", via="univ", mua="outlook",
        frm=("孙丽", "sun.li@finance.univ.example"),
        to="nlp-lab@lab.univ.example",
        rcpt="li.wei@example.com",
        subject="科研经费报销材料提交提醒",
        phrase="报销单需项目负责人签字",
        text=T("""
            各位老师、同学：

            本年度科研经费报销截止日期为12月20日，请大家抓紧整理材料。

            注意事项：
              1. 发票抬头须为学校全称，并填写税号；
              2. 电子发票请打印后与报销单一并提交；
              3. 报销单需项目负责人签字；
              4. 差旅费报销须附行程单和会议通知。

            逾期提交的将转入下一年度处理。如有疑问请与财务处联系。

            财务处 孙丽
            """),
    ),
]

MBOX_SPAM = [
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="webhost", mua="php",
        frm=("Cloud Storage Support", "support@cloud-drive-billing.example"),
        subject="Your cloud storage will be suspended today",
        phrase="update your payment details",
        text=T("""
            Dear customer,

            We were unable to renew your cloud storage subscription because your
            payment method was declined.

            Your photos, videos and documents (48.2 GB) will be permanently
            removed within 24 hours unless you update your payment details.

            Update now: http://cdn.example.net/~billing/renew.php?acct=77310

            As a thank-you for staying with us, you will receive 50 GB of extra
            storage free for 12 months after renewal.

            Cloud Storage Support Team
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="xinmail", mua="oe",
        frm=("张会计", "zhangkj_fp@xinmail.example"),
        subject="代开增值税发票，可验证",
        phrase="票点从优",
        text=T("""
            您好！

            本公司因业务量较大，每月有一定量的进项发票富余，现对外代开：

              增值税专用发票、增值税普通发票
              运输发票、广告发票、建筑工程发票、服务业发票

            票点从优，可先开票验证，确认无误后再付款。
            长期合作单位另有优惠，全程保密。

            详情请回复本邮件，注明所需发票类型、金额及开票单位名称。

            张会计
            """),
    ),
    dict(
        lang="en", kind="html", charset="utf-8", cte="quoted-printable", via="esp", mua="esp",
        frm=("SlimFast Pharmacy Direct", "shop@slim-pharmacy.example"),
        subject="Lose 10 kg before summer - doctor-formulated",
        phrase="No diet, no gym",
        html=T("""
            <html><head><style>
            .wrap{font-family:Verdana;width:540px;border:1px dashed #3a3}
            .big{font-size:22px;color:#3a3}
            </style></head>
            <body><div class="wrap">
            <p class="big">Lose up to 10 kg in 6 weeks</p>
            <p>No diet, no gym — just one capsule every morning.</p>
            <p>Our doctor-formulated appetite control pills are shipped from a licensed
            pharmacy with no prescription needed.</p>
            <p><img src="http://slim-pharmacy.example/img/before-after.jpg" width="300" alt="before and after"></p>
            <p><a href="http://slim-pharmacy.example/order?src=mail">Order now</a> &ndash; 3 bottles for the price of 2.</p>
            <p style="font-size:9px">These statements have not been evaluated. Results may vary.</p>
            </div></body></html>
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="8bit", via="list", mua="foxmail",
        list="linux-cn", poster="xinmail",
        frm=("卓越营销学院", "zhuoyue_peixun@xinmail.example"),
        subject="销售冠军特训营：三天打造狼性团队",
        phrase="让业绩翻倍",
        text=T("""
            销售经理、企业老板：

            团队业绩上不去？销售员不敢开口、不会逼单、客户跟进没章法？

            “销售冠军特训营”三天两夜封闭式训练，让业绩翻倍：
              第一天：心态突破与目标设定
              第二天：客户开发与需求挖掘
              第三天：谈判成交与团队管理

            时间：每月第二个周末
            学费：4980元/人，老板带队三人以上一人免单

            已有五千多家企业参加，培训后平均业绩提升65%。
            报名请直接回复本邮件。
            """),
    ),
    dict(
        lang="en", kind="alternative", charset="us-ascii", cte="7bit", via="cloud", mua="outlook",
        frm=("Kevin Zhou", "kevin.zhou@ledsupply-factory.example"),
        subject="Re: your inquiry about LED panel lights",
        phrase="Minimum order quantity",
        text=T("""
            Dear Purchasing Manager,

            Thank you for your interest in our products. (We got your contact
            from the trade directory.)

            We are a professional manufacturer of LED panel lights with 15 years
            of export experience. Our main products:

            - 600x600 mm panel light, 40W, 100 lm/W
            - Slim round downlights, 6W to 24W
            - Linear high-bay lights for warehouses

            Minimum order quantity is 100 pcs. Free samples available, you only
            pay the courier.

            Please let me know which models you are interested in and I will
            send our best price.

            Best regards,
            Kevin Zhou
            Sales Manager
            """),
        html=T("""
            <html><body style="font-family:Arial;font-size:10pt">
            <p>Dear Purchasing Manager,</p>
            <p>Thank you for your interest in our products. (We got your contact from the trade directory.)</p>
            <p>We are a professional manufacturer of LED panel lights with 15 years of export experience.
            Our main products:</p>
            <ul>
            <li>600x600 mm panel light, 40W, 100 lm/W</li>
            <li>Slim round downlights, 6W to 24W</li>
            <li>Linear high-bay lights for warehouses</li>
            </ul>
            <p>Minimum order quantity is 100 pcs. Free samples available, you only pay the courier.</p>
            <p>Best regards,<br>Kevin Zhou<br>Sales Manager</p>
            </body></html>
            """),
    ),
    dict(
        lang="zh", kind="html", charset="gb2312", cte="base64", via="direct", mua="none",
        frm=("乐游娱乐城", "vip@leyou-yule.example"),
        subject="新用户注册即送88元体验金",
        phrase="首充再送百分之百",
        html=T("""
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312">
            <style>.hl{color:#ff6600;font-size:18px;font-weight:bold}</style></head>
            <body bgcolor="#000000" text="#ffffff">
            <p class="hl">新用户注册即送88元体验金！</p>
            <p>首充再送百分之百，最高可得8888元。</p>
            <p>真人视讯、棋牌、电子游戏，二十四小时在线，提款三分钟到账。</p>
            <p><a href="http://leyou-yule.example/reg"><img src="http://leyou-yule.example/banner.gif" border="0"></a></p>
            <p><a href="http://leyou-yule.example/reg">立即注册</a></p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="quoted-printable", via="webhost", mua="php",
        frm=("Platinum Card Offers", "offers@platinum-card-offers.example"),
        subject="You're pre-qualified: 0% APR for 21 months",
        phrase="0% intro APR",
        text=T("""
            Good news, Alex!

            You've been pre-qualified for the Platinum Rewards card — checking
            your offer won't affect your credit score.

              • 0% intro APR on purchases and balance transfers for 21 months
              • $0 annual fee
              • 5% cash back on groceries and fuel

            Your pre-qualification code: PX-4410-7719
            Respond by 28 February: http://platinum-card-offers.example/apply

            To opt out of future pre-qualified offers, reply “STOP”.
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="utf-8", cte="base64", via="xinmail", mua="coremail",
        frm=("人事部小林", "hr_xiaolin88@xinmail.example"),
        subject="在家兼职，日结200-500元",
        subj_enc=("utf-8", "B"),
        phrase="每单佣金当天结算",
        text=T("""
            您好，打扰了！

            我们是一家电商推广公司，因业务扩大，现招聘网络兼职人员若干名：

            工作内容：用手机帮商家浏览店铺、下单提升销量，本金全额返还
            工作时间：自由安排，每天一到两小时即可
            薪资待遇：每单佣金当天结算，日收入200-500元

            要求：年满18周岁，有一部智能手机即可，无需经验，宝妈、学生优先。

            有意者请回复“兼职”，我们的带教老师会在一小时内联系您。
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gbk", cte="8bit", via="univ", mua="thunderbird",
        frm=("在职研究生招生办", "zs@zaizhi-yanjiusheng.example"),
        subject="2025年在职研究生招生：免试入学，周末上课",
        subj_enc=("gbk", "B"),
        phrase="免试入学，周末上课",
        text=T("""
            各位朋友：

            2025年在职研究生（工商管理、金融、心理学、法学等专业）现已开始报名。

              ● 免试入学，周末上课，不影响工作
              ● 修满学分可申请硕士学位
              ● 学费可分期，部分单位可开具培训费发票报销

            报名截止：2025年5月31日，名额有限。
            咨询请回复本邮件，招生老师将为您一对一解答。
            """),
    ),
]

# --- mbox/ham.mbox ----------------------------------------------------------

MBOX_HAM = [
    dict(
        # Body lines start with "From " -> written as ">From " in the mbox.
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="list", mua="mutt", list="python",
        poster="direct",
        frm=("Ruth Okafor", "ruth.okafor@example.org"),
        subject="Re: parsing mbox files with the mailbox module",
        phrase="unescaping is lossy",
        text=T("""
            > Why do some of my message bodies start with ">From"?

            Because of the mbox format itself. Each message starts with a line
            like this one:

            From alice@example.org Sat Jan  4 10:00:00 2025

            so any body line that begins with "From " has to be escaped, or the
            reader would think a new message starts there. Writers turn it into
            ">From ". Quoting the mbox man page from memory:

            From lines in the body are quoted with a single '>' character.

            The classic mboxo variant does not escape ">From " itself, so the
            unescaping is lossy; mboxrd fixes that by adding one more '>' each
            time. The stdlib mailbox.mbox writes mboxo and leaves the '>' in
            place when reading.

            Ruth
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="xinmail", mua="oe",
        frm=("奶奶", "nainai.liu@xinmail.example"),
        to="li.wei@example.com",
        subject="奶奶想你了",
        phrase="院子里的柿子熟了",
        text=T("""
            小伟：

            最近天气转凉，你那边冷不冷？奶奶给你织了一条围巾，让你叔叔过两天寄过去。

            院子里的柿子熟了，今年结得特别多，你爷爷天天念叨着要给你留一筐。
            过年回来的时候记得早点买票，别像去年那样站一路。

            奶奶身体挺好的，每天早上跟邻居去公园走两圈，你别惦记。

            奶奶（你妹妹帮我打的字）
            """),
    ),
    dict(
        lang="en", kind="plain", charset="utf-8", cte="8bit", via="list", mua="apple", list="hiking",
        poster="internal",
        frm=("Hannah Cole", "hannah.cole@example.com"),
        subject="Trip report: Pine Lake snowshoe intro",
        phrase="fourteen of us",
        text=T("""
            Hi all,

            Thanks to everyone who came out on Saturday — fourteen of us in total,
            including six first-timers!

            Conditions were perfect: −6 °C at the start, fresh powder and almost no
            wind. We did the short loop around the lake (5.2 km) and had hot
            chocolate at the shelter.

            A few notes for next time:
            • The rental place opens at 8:00, not 7:30 — sorry about the wait.
            • Bring sunglasses; the glare off the lake was brutal.
            • Gaiters make a big difference in deep snow.

            Photos are in the club album. Next trip: Falcon Ridge on the 15th.

            Hannah
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="gb2312", cte="8bit", via="univ", mua="thunderbird",
        frm=("编译原理助教", "ta.compiler@cs.univ.example"),
        to="compiler2025@lists.univ.example",
        rcpt="li.wei@example.com",
        subject="编译原理课程设计分组名单",
        phrase="每组三到四人",
        text=T("""
            各位同学：

            编译原理课程设计的分组名单已经整理好了，放在课程网站“通知”栏目下。

            几点说明：
            1. 每组三到四人，组长负责提交代码和报告；
            2. 题目是实现一个简化版C语言的编译器前端，包括词法分析、语法分析和语义检查；
            3. 第八周进行中期检查，需要演示词法分析器；
            4. 还没有组队的同学请在本周五前联系我，我会随机分配。

            助教
            """),
    ),
    dict(
        lang="en", kind="alternative", charset="utf-8", cte="quoted-printable", via="esp", mua="esp",
        frm=("Riverside Public Library", "events@riverside-library.example.org"),
        subject="What's on at the library this month",
        phrase="beginner Python workshop",
        extra=[("List-Id", "Riverside Library events <events.riverside-library.example.org>"),
               ("List-Unsubscribe", "<https://riverside-library.example.org/newsletter/leave>")],
        text=T("""
            Riverside Public Library — March events

            • Tuesday 4 March, 18:00 — Author talk: writing about local history
            • Saturday 8 March, 10:00 — Free beginner Python workshop (bring a laptop)
            • Every Wednesday, 16:00 — Kids' story time
            • Friday 21 March, 19:00 — Film night: documentary about mountain rescue

            All events are free for library members. Places for the beginner Python
            workshop are limited, so please book at the front desk or online.

            Riverside Public Library · 5 Mill Lane
            Unsubscribe: https://riverside-library.example.org/newsletter/leave
            """),
        html=T("""
            <html><body style="font-family:Helvetica,Arial">
            <h2>Riverside Public Library — March events</h2>
            <ul>
            <li><b>Tuesday 4 March, 18:00</b> — Author talk: writing about local history</li>
            <li><b>Saturday 8 March, 10:00</b> — Free beginner Python workshop (bring a laptop)</li>
            <li><b>Every Wednesday, 16:00</b> — Kids' story time</li>
            <li><b>Friday 21 March, 19:00</b> — Film night: documentary about mountain rescue</li>
            </ul>
            <p>All events are free for library members. Places for the beginner Python workshop
            are limited, so please book at the front desk or
            <a href="https://riverside-library.example.org/events">online</a>.</p>
            <p style="font-size:11px">Riverside Public Library · 5 Mill Lane ·
            <a href="https://riverside-library.example.org/newsletter/leave">Unsubscribe</a></p>
            </body></html>
            """),
    ),
    dict(
        lang="zh", kind="plain", charset="utf-8", cte="8bit", via="list", mua="thunderbird", list="linux-cn",
        poster="direct",
        frm=("孙浩然", "sun.haoran@example.org"),
        from_enc=("utf-8", "B"),
        subject="Re: git rebase 之后提交记录丢了怎么办",
        subj_enc=("utf-8", "Q"),
        phrase="用 reflog 找回来",
        text=T("""
            > rebase 的时候解决冲突弄错了，现在有两个提交不见了。

            别慌，提交一般没有真的丢，可以用 reflog 找回来：

                git reflog
                # 找到 rebase 之前的那一条，比如 HEAD@{5}
                git branch rescue HEAD@{5}

            然后在 rescue 分支上确认代码没问题，再 cherry-pick 需要的提交。

            以后做大的 rebase 之前，先打一个临时分支备份，会安心很多。

            孙浩然
            """),
    ),
    dict(
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="internal", mua="outlook16",
        frm=("Omar Haddad", "omar.haddad@example.com"),
        to="Alex Morgan <alex.morgan@example.com>",
        subject="Re: flaky integration test on the build runners",
        phrase="pin the container image",
        text=T("""
            Hi Alex,

            From what I can tell the test is not flaky by itself. It fails only on
            runner 3, which still has the old container image cached.

            From the logs:

              runner-3  image sha256:4be1...  test_sync_upload  FAILED (timeout)
              runner-1  image sha256:9c07...  test_sync_upload  passed

            I'd suggest we pin the container image by digest in the CI config and
            clear the cache on runner 3. I can do both tomorrow morning unless you
            object.

            Omar
            """),
    ),
    dict(
        # Legitimate academic 讲座 announcement.
        lang="zh", kind="html", charset="gb2312", cte="base64", via="univ", mua="outlook",
        frm=("计算机学院", "news@cs.univ.example"),
        to="all-staff@univ.example",
        rcpt="li.wei@example.com",
        subject="学术讲座：大语言模型时代的信息检索",
        phrase="欢迎感兴趣的师生参加",
        html=T("""
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head>
            <body>
            <h3>学术讲座：大语言模型时代的信息检索</h3>
            <p>主讲人：高远 研究员</p>
            <p>时间：2025年3月12日（周三）下午3:00</p>
            <p>地点：信息楼一楼报告厅</p>
            <p>内容简介：讲座将介绍检索增强生成的基本框架、稠密检索与稀疏检索的结合方式，
            以及在中文场景下的评测方法。</p>
            <p>欢迎感兴趣的师生参加。</p>
            <p>计算机学院 科研办公室</p>
            </body></html>
            """),
    ),
    dict(
        lang="en", kind="plain", charset="iso-8859-1", cte="8bit", via="freemail", mua="webmail",
        frm=("José Muñoz", "jose.munoz@example.net"),
        subject="Visiting in April - still OK?",
        phrase="paella at my cousin's",
        text=T("""
            Hola Alex!

            Are you still around in the second week of April? I have a conference
            in your city from the 9th to the 11th and would love to stay one more
            day to see you.

            Last time you promised to show me that café with the famous croissants.
            In return I'm bringing jamón and a bottle of good Ribera.

            And if you ever come to Sevilla: paella at my cousin's place, señor,
            no excuses this time.

            Abrazos,
            José
            """),
    ),
]

# --- maildir/spam -----------------------------------------------------------
# "box" is the Maildir subdirectory; messages in cur/ carry an info suffix.

MAILDIR_SPAM = [
    dict(
        box="cur", flags="S",
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="freemail", mua="webmail",
        frm=("Global Sweepstakes Office", "global.sweepstakes.office@example.net"),
        subject="Second notification: your claim number GS-2025-0419",
        phrase="one-time processing and courier",
        text=T("""
            SECOND NOTIFICATION

            Your email address has been confirmed as a winner in our quarterly
            international sweepstakes. Prize: USD 250,000.00 and a new car.

            Claim number: GS-2025-0419

            To receive your prize you must pay a one-time processing and courier
            fee of USD 385. Payment details will be sent after you reply with your
            full name, address and date of birth.

            Reply within 5 days or the prize will be forfeited.

            Mr. Alan Whitcombe
            Director of Claims
            """),
    ),
    dict(
        box="new",
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="xinmail", mua="foxmail",
        frm=("刘会计", "liukj_fapiao@xinmail.example"),
        subject="专业代开发票，诚信经营",
        phrase="开票点数低",
        text=T("""
            您好：

            我公司可代开各地区、各行业发票，开票点数低，所开发票保真可查。

            主要项目：
              增值税专用发票　　普通发票
              广告费　运输费　服务费　工程款　会议费　培训费

            如您公司有需要，请来信咨询，我们会尽快回复。

            诚信经营，长期合作。
            """),
    ),
    dict(
        box="new",
        lang="en", kind="html", charset="utf-8", cte="base64", via="direct", mua="oe",
        frm=("Designer Bags Outlet", "sale@designer-bags-outlet.example"),
        subject="Designer-inspired handbags, 85% off this weekend",
        phrase="hand-stitched leather",
        html=T("""
            <html><head><style>
            h1{font-family:Didot,Georgia,serif;letter-spacing:2px}
            .price{color:#b30059;font-size:20px}
            </style></head>
            <body>
            <h1>WEEKEND SALE</h1>
            <p>Designer-inspired handbags with hand-stitched leather and gold-tone hardware.</p>
            <p class="price">From $59 — was $420</p>
            <p><img src="http://designer-bags-outlet.example/img/tote.jpg" alt="tote bag" width="280"></p>
            <p>Totes, clutches &amp; crossbody bags. Dust bag and authenticity card included.</p>
            <p><a href="http://designer-bags-outlet.example/sale">Shop the sale</a></p>
            </body></html>
            """),
    ),
    dict(
        box="cur", flags="S",
        lang="zh", kind="alternative", charset="gb2312", cte="base64", via="xinmail", mua="foxmail7",
        frm=("网络推广部", "wangluo_tuiguang@xinmail.example"),
        subject="企业网络推广，一站式解决获客难题",
        phrase="精准获取意向客户",
        text=T("""
            尊敬的企业负责人：

            您好！我们为中小企业提供一站式网络推广服务，帮助您精准获取意向客户：

              1. 搜索引擎关键词推广
              2. 短视频平台代运营
              3. 行业网站信息发布
              4. 客户线索管理系统

            首月推广费用八折，效果不满意可随时终止合作。

            回复本邮件即可获取免费推广方案。
            """),
        html=T("""
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head>
            <body>
            <p>尊敬的企业负责人：</p>
            <p>您好！我们为中小企业提供一站式网络推广服务，帮助您精准获取意向客户：</p>
            <ol><li>搜索引擎关键词推广</li><li>短视频平台代运营</li><li>行业网站信息发布</li><li>客户线索管理系统</li></ol>
            <p><b>首月推广费用八折</b>，效果不满意可随时终止合作。</p>
            <p>回复本邮件即可获取免费推广方案。</p>
            </body></html>
            """),
    ),
    dict(
        # Business e-mail compromise: sounds like ordinary work mail.
        box="cur", flags="RS",
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="freemail", mua="iphone",
        frm=("Grace Liu", "grace.liu.office@example.net"),
        to="Alex Morgan <alex.morgan@example.com>",
        subject="Urgent request - are you at your desk?",
        phrase="handle a wire transfer",
        text=T("""
            Alex,

            I'm in back-to-back meetings all afternoon and can't take calls. I need
            you to handle a wire transfer to a new supplier before the bank cut-off
            at 3pm. The invoice is confidential until the deal is announced, so
            please don't discuss it with the team yet.

            Amount: EUR 18,450.00
            I'll send the beneficiary details as soon as you confirm you can do it.

            Reply to this address only.

            Grace
            Sent from my phone
            """),
    ),
    dict(
        box="new",
        lang="zh", kind="plain", charset="gb2312", cte="quoted-printable", via="direct", mua="oe",
        frm=("康寿健康讲堂", "jiangtang@kangshou-jiankang.example"),
        subject="免费养生讲座邀请：中老年人如何调理三高",
        phrase="到场即送鸡蛋一盒",
        text=T("""
            尊敬的叔叔阿姨：

            本周日上午九点，“康寿健康讲堂”在社区活动中心举办免费养生讲座，
            特邀知名养生专家讲解中老年人如何科学调理高血压、高血糖、高血脂。

            讲座现场提供免费量血压、测血糖服务，到场即送鸡蛋一盒。
            现场还将推荐适合中老年人的深海鱼油和营养品，会员价五折。

            座位有限，请提前回复预约。
            """),
    ),
    dict(
        box="new",
        lang="zh", kind="plain", charset="utf-8", cte="8bit", via="webhost", mua="php",
        frm=("网上银行安全中心", "security@ebank-anquan.example"),
        from_enc=("utf-8", "B"),
        subject="【安全提醒】您的银行账户存在异常交易",
        subj_enc=("utf-8", "B"),
        phrase="账户将被临时冻结",
        text=T("""
            尊敬的客户：

            系统检测到您的账户于今日凌晨在异地发生一笔大额消费（￥9,860.00），
            如非本人操作，请立即登录以下网址核实身份信息，否则账户将被临时冻结。

            核实地址：http://www.example.org/images/ebank/verify.html

            本邮件由系统自动发送，请勿回复。
            """),
    ),
]

# --- maildir/ham ------------------------------------------------------------

MAILDIR_HAM = [
    dict(
        box="cur", flags="S",
        lang="en", kind="plain", charset="us-ascii", cte="7bit", via="internal", mua="thunderbird",
        frm=("Felix Wagner", "felix.wagner@example.com"),
        to="platform-team@example.com",
        rcpt="alex.morgan@example.com",
        subject="Deploy window tonight, 22:00-23:00",
        phrase="roll back by redeploying",
        text=T("""
            Hi all,

            Reminder that we deploy release 4.2 tonight between 22:00 and 23:00.

            - Omar runs the database migration first (about 10 minutes).
            - I'll deploy the services in the usual order and watch the dashboards.
            - If error rates go above 1% we roll back by redeploying 4.1.3.

            Please keep merges to main frozen until I send the all-clear.

            Felix
            """),
    ),
    dict(
        box="cur", flags="RS",
        lang="zh", kind="plain", charset="gb2312", cte="base64", via="xinmail", mua="foxmail7",
        frm=("小周", "zhou.xiaoling@xinmail.example"),
        to="li.wei@example.com",
        subject="周末火锅，来不来？",
        phrase="老地方那家火锅店",
        text=T("""
            伟哥：

            周六晚上几个老同事约了吃火锅，还是老地方那家火锅店，七点见。
            小张刚从外地调回来，正好给他接风。

            你要是来的话跟我说一声，我好订位子。记得叫上嫂子一起！

            小周
            """),
    ),
    dict(
        box="cur", flags="S",
        lang="en", kind="mixed-attachment", charset="us-ascii", cte="7bit", via="esp", mua="esp",
        frm=("Bluesky Rail Travel", "tickets@bluesky-rail.example"),
        subject="Your e-ticket: Lakeside to Harbour City, 14 March",
        phrase="Coach 7, seat 42",
        text=T("""
            Hello Alex Morgan,

            Thank you for booking with Bluesky Rail. Your e-ticket is attached.

              Booking reference:  BR7Q2K
              Date:               Friday 14 March 2025
              Departure:          Lakeside Central 07:42
              Arrival:            Harbour City 10:15
              Seat:               Coach 7, seat 42 (window)

            Please show the PDF or the QR code on your phone when asked.

            Have a pleasant journey!
            """),
        attach=dict(filename="eticket-BR7Q2K.pdf", ctype="application/pdf",
                    data=tiny_pdf("Bluesky Rail e-ticket BR7Q2K")),
    ),
    dict(
        box="new",
        lang="zh", kind="plain", charset="gb2312", cte="8bit", via="direct", mua="thunderbird",
        tls=False,
        frm=("期刊编辑部", "editor@jisuanji-xuebao.example.org"),
        to="li.wei@example.com",
        subject="稿件审稿意见通知（稿件编号：2024-1187）",
        phrase="小修后录用",
        text=T("""
            李伟 老师：

            您好！您投稿的《基于朴素贝叶斯的中英文混合垃圾邮件过滤方法》已完成外审，
            审稿结论为“小修后录用”。

            审稿人主要意见：
            1. 请补充与其他分类方法的对比实验；
            2. 中文分词对结果的影响需要进一步讨论；
            3. 参考文献格式请按本刊要求修改。

            请于30天内登录投稿系统提交修改稿及修改说明。

            编辑部
            """),
    ),
    dict(
        box="new",
        lang="en", kind="alternative", charset="utf-8", cte="quoted-printable", via="esp", mua="esp",
        frm=("CityBike Share", "receipts@citybike-share.example"),
        subject="Your ride receipt – 34 minutes, €2.40",
        subj_enc=("utf-8", "Q"),
        phrase="Harbour Street to Pine Lake",
        text=T("""
            Thanks for riding with CityBike!

            Ride: Harbour Street to Pine Lake
            Duration: 34 minutes
            Distance: 7.8 km
            Charged: €2.40 (monthly pass, overtime fee)

            Your monthly pass includes the first 30 minutes of every ride free.

            Questions? Reply to this email.
            """),
        html=T("""
            <html><body style="font-family:Arial">
            <h3>Thanks for riding with CityBike!</h3>
            <table>
            <tr><td>Ride</td><td>Harbour Street to Pine Lake</td></tr>
            <tr><td>Duration</td><td>34 minutes</td></tr>
            <tr><td>Distance</td><td>7.8 km</td></tr>
            <tr><td>Charged</td><td>€2.40 (monthly pass, overtime fee)</td></tr>
            </table>
            <p>Your monthly pass includes the first 30 minutes of every ride free.</p>
            </body></html>
            """),
    ),
    dict(
        box="cur", flags="S",
        lang="zh", kind="plain", charset="utf-8", cte="base64", via="univ", mua="iphone",
        frm=("刘洋", "liu.yang@lab.univ.example"),
        from_enc=("utf-8", "B"),
        to="nlp-lab@lab.univ.example",
        rcpt="li.wei@example.com",
        subject="下周组会改到周四",
        subj_enc=("utf-8", "B"),
        phrase="改到周四上午十点",
        text=T("""
            各位：

            因为周三下午学院有教学检查，下周组会改到周四上午十点，地点还是实验室小会议室。

            这次轮到李伟和王磊汇报，每人二十分钟左右。

            刘洋
            """),
    ),
    dict(
        box="new",
        lang="en", kind="plain", charset="utf-8", cte="8bit", via="freemail", mua="apple",
        frm=("Sam Morgan", "sam.morgan@example.net"),
        subject="Mom’s 60th – gift ideas?",
        subj_enc=("utf-8", "Q"),
        phrase="pottery class voucher",
        text=T("""
            Hey,

            Mom’s 60th is in five weeks. I was thinking we could all chip in for
            something bigger this year instead of three small presents.

            Ideas so far:
            – a pottery class voucher (she keeps talking about it)
            – a weekend at that B&B by the lake
            – new hiking boots, hers are falling apart

            Let me know what you think — I can book whatever we pick.

            Sam
            """),
    ),
]


# ---------------------------------------------------------------------------
# MIME building
# ---------------------------------------------------------------------------

BODY_ENCODING = {"7bit": None, "8bit": None, "base64": BASE64, "quoted-printable": QP}
CJK_CHARSETS = {"gb2312", "gbk", "big5"}
UTC = dt.timezone.utc
EN_ZONES = [-5, 0, -8, 1, 10, -7, 2, 5.5]  # UTC offsets used for English senders, in turn


def mime_charset(name: str) -> Charset:
    """An email.charset.Charset whose encoded words carry the MIME name.

    The stock Charset('gb2312') labels encoded words with the Python codec
    name ("=?eucgb2312_cn?b?...?=") and big5 with "big5_tw"; real mail uses
    the MIME names, so use those as the codec names (Python knows both).
    """
    cs = Charset(name)
    if name != "us-ascii":
        cs.input_codec = cs.output_codec = name
    return cs


def encoded_words(text: str, charset: str, enc: str, header_name: str, upper: bool) -> str:
    """RFC 2047 encode *text*; a leading "Re: "/"Fwd: " stays plain ASCII."""
    cs = mime_charset(charset)
    cs.header_encoding = BASE64 if enc == "B" else QP
    prefix = re.match(r"(?:Re|RE|Fwd|FW): ", text)
    if prefix:
        header = Header(prefix.group(0).rstrip(), "us-ascii", header_name=header_name)
        header.append(text[prefix.end():], cs)
    else:
        header = Header(text, cs, header_name=header_name)
    value = header.encode()
    if upper:  # Windows mail clients write "=?gb2312?B?...?="
        value = re.sub(r"(=\?[^?]+\?)([bq])\?", lambda m: m.group(1) + m.group(2).upper() + "?", value)
    return value


def default_encoding(spec: dict, text: str) -> tuple[str, str]:
    """Charset and B/Q for a non-ASCII header when the spec does not say."""
    charset = spec["charset"]
    try:
        text.encode(charset)
    except UnicodeEncodeError:
        charset = "utf-8"
    return charset, ("B" if charset in CJK_CHARSETS else "Q")


def is_ascii(s: str) -> bool:
    return all(ord(c) < 128 for c in s)


def text_part(body: str, subtype: str, charset: str, cte: str) -> MIMEText:
    cs = mime_charset(charset)
    cs.body_encoding = BODY_ENCODING[cte]
    part = MIMEText(body, subtype, cs)
    if part["Content-Transfer-Encoding"] != cte:
        raise ValueError(f"asked for {cte}, email chose {part['Content-Transfer-Encoding']}")
    del part["MIME-Version"]
    return part


def attachment_part(att: dict) -> MIMEBase:
    maintype, subtype = att["ctype"].split("/")
    filename = att["filename"]
    if "filename_charset" in att:  # RFC 2231: filename*=gb2312''%BB%E1...
        filename = (att["filename_charset"], "", filename)
    part = MIMEBase(maintype, subtype, name=filename)
    part.set_payload(att["data"])
    encoders.encode_base64(part)
    part.add_header("Content-Disposition", "attachment", filename=filename)
    del part["MIME-Version"]
    return part


# One helper per structure kind.

def build_plain(spec: dict, boundary: str):
    return text_part(spec["text"], "plain", spec["charset"], spec["cte"])


def build_html(spec: dict, boundary: str):
    return text_part(spec["html"], "html", spec["charset"], spec["cte"])


def build_alternative(spec: dict, boundary: str):
    msg = MIMEMultipart("alternative", boundary=boundary, _subparts=[
        text_part(spec["text"], "plain", spec["charset"], spec["cte"]),
        text_part(spec["html"], "html", spec["charset"], spec["cte"]),
    ])
    msg.preamble = "This is a multi-part message in MIME format."
    return msg


def build_mixed_attachment(spec: dict, boundary: str):
    msg = MIMEMultipart("mixed", boundary=boundary, _subparts=[
        text_part(spec["text"], "plain", spec["charset"], spec["cte"]),
        attachment_part(spec["attach"]),
    ])
    msg.preamble = "This is a multi-part message in MIME format."
    return msg


BUILDERS = {
    "plain": build_plain,
    "html": build_html,
    "alternative": build_alternative,
    "mixed-attachment": build_mixed_attachment,
}


# ---------------------------------------------------------------------------
# Headers: where a message came from, and how
#
# Spam and ham travel the same roads here, as they do in real mail: both are
# sent from the same free-mail services, the same bulk-mail service, web
# hosts, hosted company mail and mailing lists, by the same mail programs,
# and all of it ends at example.com's two MX hosts and its mailbox server.
# A message's headers follow from its route (`via`), its mail program
# (`mua`), its sender and its date, never from its label, so a filter
# trained on this set learns what the mail says, not which relay only spam
# used.
# ---------------------------------------------------------------------------

# The receiving side, the same for every message: two MX hosts (Postfix)
# hand mail to the mailbox server (Dovecot LMTP); mail between colleagues
# goes from the submission server straight to the mailbox server.
MX_HOSTS = [("mx1.example.com", "192.0.2.25"), ("mx2.example.com", "192.0.2.26")]
SUBMISSION = ("smtp.example.com", "192.0.2.30")
MAILBOX_SERVER = "imap.example.com"

WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
ZONE_NAMES = {"+0000": "UTC", "+0800": "CST", "+0100": "CET", "+0200": "EET", "-0500": "EST", "-0700": "MST",
              "-0800": "PST", "+1000": "AEST", "+0530": "IST"}
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def rfc_date(t: dt.datetime, style: str) -> str:
    """A date in one of the shapes real mail programs and servers write."""
    if style == "utc":
        t = t.astimezone(UTC)
    zone = t.strftime("%z")
    day, rest = WEEKDAYS[t.weekday()], f"{MONTHS[t.month - 1]} {t.year} {t:%H:%M:%S} {zone}"
    return {
        "short": f"{day}, {t.day} {rest}",                   # Outlook, Thunderbird, Apple Mail, Foxmail
        "padded": f"{day}, {t.day:02d} {rest}",              # mutt, PHP, webmail
        "utc": f"{day}, {t.day:02d} {rest} (UTC)",           # bulk-mail service
        "cst": f"{day}, {t.day} {rest} (CST)",               # Coremail
        "noweekday": f"{t.day} {rest}",                      # scripts
        "postfix": f"{day}, {t.day:2d} {rest} ({ZONE_NAMES.get(zone, 'local time')})",  # Postfix
    }[style]


class Draw:
    """Fixed pseudo-random choices for one message, from its path: the same
    message gets the same queue ids, addresses and hosts on every run."""

    def __init__(self, key: str) -> None:
        self.key = key

    def hex(self, salt: str, n: int) -> str:
        out = ""
        while len(out) < n:
            out += hashlib.sha256(f"{self.key}|{salt}|{len(out)}".encode()).hexdigest()
        return out[:n]

    def num(self, salt: str, lo: int, hi: int) -> int:
        return lo + int(self.hex(salt, 8), 16) % (hi - lo + 1)

    def pick(self, salt: str, seq):
        return seq[self.num(salt, 0, len(seq) - 1)]

    def queue_id(self, salt: str) -> str:
        """A Postfix long queue id; always holds a digit, so it is never a word."""
        alphabet = "0123456789BCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz"
        value = int(self.hex(salt, 24), 16)
        chars = []
        while len(chars) < 14:
            value, r = divmod(value, len(alphabet))
            chars.append(alphabet[r])
        return str(self.num(salt + "d", 1, 9)) + "".join(chars)

    def exim_id(self, salt: str) -> str:
        """An Exim message id: 1tXXXX-000NXX-NK."""
        middle = f"000{self.num(salt + '2', 1, 9)}{self.hex(salt + '3', 2).upper()}"
        return f"1t{self.hex(salt, 4)}-{middle}-{self.num(salt + '4', 1, 9)}K"

    def ipv4(self, salt: str) -> str:
        """A client address somewhere on the Internet (documentation ranges)."""
        net = self.pick(salt + "net", ["198.51.100", "203.0.113"])
        return f"{net}.{self.num(salt, 2, 254)}"

    def ipv6(self, salt: str) -> str:
        return f"2001:db8:{self.hex(salt, 3)}:{self.num(salt + 'x', 1, 255):x}::{self.hex(salt + 'h', 3)}"


@dataclass
class Hop:
    """What one route hands to the next server: the hops so far (newest
    first), the host that makes the next connection, and its address."""
    received: list
    host: str
    rdns: str
    ip: str
    tls: bool = True
    extra: list = field(default_factory=list)
    return_path: str = ""


class Context:
    def __init__(self, spec: dict, key: str, when: dt.datetime, rcpt: str) -> None:
        self.spec, self.when, self.rcpt = spec, when, rcpt
        self.sender = spec["frm"][1]
        self.local, self.domain = self.sender.split("@")
        self.draw = Draw(key)
        self.mua = MUAS[spec["mua"]]
        self.clock = when + dt.timedelta(seconds=self.draw.num("sent", 2, 40))

    def later(self, salt: str, lo: int = 1, hi: int = 30) -> dt.datetime:
        """The time the next server stamps, a little after the last one."""
        self.clock += dt.timedelta(seconds=self.draw.num(salt, lo, hi))
        return self.clock

    def stamp(self, salt: str, hours: float, style: str = "postfix") -> str:
        return rfc_date(self.later(salt).astimezone(dt.timezone(dt.timedelta(hours=hours))), style)


def from_clause(helo: str, rdns: str, ip: str) -> str:
    """'from helo (rdns [ip])', folded when it would not fit on one line."""
    text = f"from {helo} ({rdns} [{ip}])"
    return text.replace(" (", "\n\t(", 1) if len(text) > 60 else text


def client_helo(c: Context, server: str, salt: str) -> tuple[str, str]:
    """The name a mail program gives in SMTP HELO, and the address it
    connects from: the program's habit, not the sender's."""
    kind, d = c.mua["helo"], c.draw
    if kind == "user":  # Outlook Express says "User" unless the owner renamed the PC
        return "User", d.ipv4(salt)
    if kind == "desktop":
        return f"DESKTOP-{d.hex(salt + 'pc', 7).upper()}", d.ipv4(salt)
    if kind == "webmail":  # the provider's own web front end
        return f"webmail.{server.split('.', 1)[1]}", d.ipv4(salt)
    ip = "IPv6:" + d.ipv6(salt)
    return f"[{ip}]", ip


def submission(c: Context, server: str, hours: float, salt: str = "sub") -> str:
    """The first hop: the sender's mail program hands the message to its
    provider's server with SMTP AUTH."""
    helo, ip = client_helo(c, server, salt)
    return (f"{from_clause(helo, 'unknown', ip)}\n\tby {server} (Postfix) with ESMTPSA id "
            f"{c.draw.queue_id(salt)};\n\t{c.stamp(salt, hours)}")


# One function per route: the hops a message makes before it reaches our
# MX, newest first.

def via_freemail(c: Context) -> Hop:
    """Example Net Mail (example.net), a large free-mail service, used from
    its web page or with a mail program over SMTP AUTH."""
    n = c.draw.num("out", 1, 4)
    host = f"smtp-out{n}.example.net"
    extra = []
    if c.spec["mua"] == "webmail":
        first = (f"from webmail.example.net (webmail.example.net [198.51.100.39])\n\tby {host} (Postfix) "
                 f"with ESMTPSA id {c.draw.queue_id('web')}\n\tfor <{c.rcpt}>; {c.stamp('web', 0)}")
        extra.append(("X-Originating-IP", f"[{c.draw.ipv4('client')}]"))
    else:
        first = submission(c, host, 0)
    return Hop([first], host, host, f"198.51.100.{40 + n}", extra=extra)


def coremail(c: Context, host: str, n: int) -> Hop:
    """The first hop on a Coremail system, from its web page or from a mail
    program, and the headers Coremail adds."""
    d = c.draw
    if c.spec["mua"] == "coremail":
        client = d.ipv4("client")
        first = (f"from {c.local}${c.domain} ( [{client}] ) by ajax-webmail-wmsvr{n} (Coremail) ;\n\t"
                 f"{c.stamp('core', 8, 'cst')}")
    else:
        helo, client = client_helo(c, host, "client")
        first = (f"from {helo} (unknown [{client}])\n\tby smtp{n} (Coremail) with SMTP id "
                 f"{d.hex('cm', 6)}{d.hex('cm2', 20).upper()};\n\t{c.stamp('core', 8, 'cst')}")
    extra = [("X-Originating-IP", f"[{client}]"), ("X-CM-TRANSID", f"_____wD{d.hex('tid', 24)}--.{n}")]
    return Hop([first], host, host, "", extra=extra)


def via_xinmail(c: Context) -> Hop:
    """Xinmail (xinmail.example), a Chinese free-mail service on Coremail."""
    n = c.draw.num("out", 3, 9)
    hop = coremail(c, f"m{n}-{c.draw.num('m', 11, 99)}.xinmail.example", n)
    hop.ip = f"203.0.113.{30 + n}"
    return hop


def via_esp(c: Context) -> Hop:
    """SendWave (sendwave.example), a bulk-mail service: newsletters,
    receipts and campaigns, sent by whoever pays for them."""
    d = c.draw
    n = d.num("out", 1, 9)
    host = f"o{n}.mta.sendwave.example"
    first = (f"from {d.hex('app', 10)} (unknown)\n\tby api{d.num('api', 1, 4)}.sendwave.example (SendWave) "
             f"with HTTP id {d.hex('http', 16)}\n\tfor <{c.rcpt}>; {c.stamp('api', 0, 'utc')}")
    token = d.hex("unsub", 24)
    account = Draw(c.domain).num("account", 1000, 9999)  # one customer account per sender
    extra = [("Feedback-ID", f"{account}:{d.num('camp', 10, 99)}:sendwave"),
             ("X-SW-Campaign", d.hex("campaign", 12))]
    if not any(k == "List-Unsubscribe" for k, _ in c.spec.get("extra", [])):
        unsubscribe = f"<https://sendwave.example/u/{token}>,\n <mailto:u-{token[:10]}@sendwave.example>"
        extra += [("List-Unsubscribe", unsubscribe),
                  ("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")]
    rcpt = c.rcpt.replace("@", "=")
    return Hop([first], host, host, f"203.0.113.{150 + n}", extra=extra,
               return_path=f"<bounce-{d.hex('vrp', 8)}-{rcpt}@bounces.sendwave.example>")


def via_webhost(c: Context) -> Hop:
    """HostNest (hostnest.example), shared web hosting: a site's PHP code
    sends its own mail through the server's Exim."""
    d = c.draw
    n = d.num("out", 11, 19)
    host = f"web{n}.hostnest.example"
    first = (f"from www-data by {host} with local (Exim 4.97)\n\t(envelope-from <{c.sender}>)\n\t"
             f"id {d.exim_id('exim')};\n\t{c.stamp('exim', 1, 'padded')}")
    return Hop([first], host, host, f"198.51.100.{100 + n}")


def via_cloud(c: Context) -> Hop:
    """CloudMail (cloudmail.example), hosted company mail in the Exchange
    manner: many companies' mail leaves through the same edge hosts."""
    d = c.draw
    region = d.pick("region", ["eur05", "nam12", "apc01"])
    n = d.num("out", 20, 99)
    box = f"{d.pick('box', ['DB9PR', 'AM6PR', 'SN4PR', 'TYZPR'])}{d.num('pr', 10, 99)}MB{d.num('mb', 1000, 9999)}"
    first = (f"from {box}.{region}.prod.cloudmail.example\n\t([{d.ipv6('box')}]) by "
             f"{box}.{region}.prod.cloudmail.example\n\t([{d.ipv6('box')}]) with mapi id 15.20.8207.017;\n\t"
             f"{c.stamp('mapi', 0, 'short')}")
    host = f"mail-{region}on{n}.outbound.cloudmail.example"
    return Hop([first], host, host, f"203.0.113.{70 + n % 10}")


def via_univ(c: Context) -> Hop:
    """The mail system of a university (univ.example), on Coremail as many are."""
    n = c.draw.num("out", 1, 2)
    hop = coremail(c, f"mail{n}.univ.example", n)
    hop.ip = f"198.51.100.{10 + n}"
    return hop


def via_direct(c: Context) -> Hop:
    """The sender's own machine talks to the receiving server: a small
    company's or a person's own mail server, or a hijacked home computer
    that sends with no mail server at all."""
    d = c.draw
    ip = d.ipv4("direct")
    if "rdns" in c.spec:  # "{ip}" stands for the address, dashed, as ISPs name their hosts
        c.spec = dict(c.spec, rdns=c.spec["rdns"].replace("{ip}", ip.replace(".", "-")))
    if c.mua["helo"] in ("user", "host"):  # the program itself speaks SMTP
        helo = "User" if c.mua["helo"] == "user" else c.spec.get("helo", c.domain)
        rdns = c.spec.get("rdns") or d.pick("rdns", [f"{ip.replace('.', '-')}.dyn.broadband.example", "unknown"])
        return Hop([], helo, rdns, ip, tls=c.spec.get("tls", d.num("tls", 0, 2) == 0))
    host = c.spec.get("helo", f"mail.{c.domain}")
    hours = c.when.utcoffset().total_seconds() / 3600
    return Hop([submission(c, host, hours)], host, c.spec.get("rdns", host), ip, tls=c.spec.get("tls", True))


def via_internal(c: Context) -> Hop:
    """A colleague's mail: example.com's own submission server."""
    host, ip = SUBMISSION
    return Hop([submission(c, host, 0)], host, host, ip)


def via_list(c: Context) -> Hop:
    """A mailing list: the poster's own route to the list server (Exim,
    which names the client's HELO when it is not its reverse DNS name), then
    the list server (Mailman) sends it on to every member."""
    _, local, list_domain = LISTS[c.spec["list"]]
    server = list_domain if list_domain.startswith("lists.") else f"lists.{list_domain}"
    poster = ROUTES[c.spec.get("poster", "freemail")](c)
    ip = "198.51.100.200" if server == "lists.example.org" else c.draw.ipv4("list")
    helo = "" if poster.host == poster.rdns else f" helo={poster.host}"
    client = f"[{poster.ip}] ({helo.strip()})" if poster.rdns == "unknown" else f"{poster.rdns} ([{poster.ip}]{helo})"
    kind = "esmtps (TLS1.3) tls TLS_AES_256_GCM_SHA384" if poster.tls else "esmtp"
    hop = (f"from {client}\n\tby {server} with {kind}\n\t(Exim 4.97)\n\t(envelope-from <{c.sender}>)\n\t"
           f"id {c.draw.exim_id('list')}\n\tfor {local}@{list_domain}; {c.stamp('list', -5, 'padded')}")
    rcpt = c.rcpt.replace("@", "=")
    return Hop([hop] + poster.received, server, server, ip, extra=poster.extra,
               return_path=f"<{local}-bounces+{rcpt}@{list_domain}>")


ROUTES = {
    "freemail": via_freemail, "xinmail": via_xinmail, "esp": via_esp, "webhost": via_webhost,
    "cloud": via_cloud, "univ": via_univ, "direct": via_direct, "internal": via_internal, "list": via_list,
}


def received_headers(c: Context, route: Hop) -> list[str]:
    """Every Received line, newest (our mailbox server) first."""
    lines = []
    if route.host == SUBMISSION[0]:
        last = SUBMISSION
    else:
        last = c.draw.pick("mx", MX_HOSTS)
        kind = "ESMTPS" if route.tls else "ESMTP"
        lines.append(f"{from_clause(route.host, route.rdns, route.ip)}\n\tby {last[0]} (Postfix) with {kind} id "
                     f"{c.draw.queue_id('mx')}\n\tfor <{c.rcpt}>; {c.stamp('mx', 0)}")
    envelope = (route.return_path or f"<{c.sender}>").strip("<>")
    lmtp = (f"from {last[0]} ([{last[1]}])\n\tby {MAILBOX_SERVER} with LMTP\n\tid {c.draw.hex('lmtp', 8)}"
            f"{c.draw.queue_id('lmtp2')[:8]}\n\t(envelope-from <{envelope}>)\n\tfor <{c.rcpt}>; {c.stamp('lmtp', 0)}")
    return [lmtp] + lines + route.received


def message_id(c: Context) -> str:
    d, when = c.draw, c.when
    style = c.mua["msgid"]
    if style == "outlook":
        return f"<{d.hex('o1', 12)}${d.hex('o2', 8)}${d.hex('o3', 8)}$@{c.domain}>"
    if style == "oe":
        return f"<{d.hex('o1', 12)}${d.hex('o2', 8)}${d.hex('o3', 8)}@User>"
    if style == "foxmail":
        return f"<{when:%Y%m%d%H%M%S}{d.num('fox', 1000000, 9999999)}@{c.domain}>"
    if style == "coremail":
        return f"<{d.hex('c1', 8)}.{d.hex('c2', 4)}.{d.hex('c3', 11)}.Coremail.{c.local}@{c.domain}>"
    if style in ("uuid", "apple"):
        u = d.hex("uuid", 32)
        u = f"{u[:8]}-{u[8:12]}-4{u[13:16]}-a{u[17:20]}-{u[20:]}"
        return f"<{u.upper() if style == 'apple' else u}@{c.domain}>"
    if style == "mutt":
        return f"<{when.astimezone(UTC):%Y%m%d%H%M%S}.GA{d.num('mutt', 1000, 99999)}@{c.domain}>"
    if style == "webmail":
        return f"<{d.num('w', 100000, 999999)}.{d.hex('w2', 10)}.{int(when.timestamp())}@webmail.{c.domain}>"
    if style == "esp":
        return f"<{d.hex('esp', 20)}.{d.num('esp2', 1, 99)}@mta.sendwave.example>"
    if style == "hex":
        return f"<{d.hex('hex', 32)}@{c.domain}>"
    return f"<{when:%Y%m%d%H%M%S}.{d.hex('plain', 8)}@{c.domain}>"


def message_headers(spec: dict, key: str, when: dt.datetime) -> list[tuple[str, str]]:
    name, addr = spec["frm"]
    mua = MUAS[spec["mua"]]
    upper = mua["upper"]

    default_rcpt = getaddresses([DEFAULT_RCPT[spec["lang"]]])[0][1]
    if "list" in spec:
        _, local, list_domain = LISTS[spec["list"]]
        to = spec.get("to", f"{local}@{list_domain}")
        rcpt = spec.get("rcpt", default_rcpt)
    else:
        to = spec.get("to", DEFAULT_RCPT[spec["lang"]])
        to_addr = getaddresses([to])[0][1]
        rcpt = spec.get("rcpt") or (to_addr if to_addr.endswith("@example.com") else default_rcpt)
    c = Context(spec, key, when, rcpt)
    route = ROUTES[spec["via"]](c)

    if is_ascii(name):
        from_value = formataddr((name, addr))
    else:
        charset, enc = spec.get("from_enc") or default_encoding(spec, name)
        from_value = f"{encoded_words(name, charset, enc, 'From', upper)} <{addr}>"

    subject = spec["subject"]
    if is_ascii(subject):
        subject_value = subject
    else:
        charset, enc = spec.get("subj_enc") or default_encoding(spec, subject)
        subject_value = encoded_words(subject, charset, enc, "Subject", upper)

    headers = [("Return-Path", route.return_path or f"<{addr}>"), ("Delivered-To", rcpt)]
    headers += [("Received", r) for r in received_headers(c, route)]
    headers += route.extra
    headers += [
        ("Date", rfc_date(when, mua["date"])),
        ("From", from_value),
        ("To", to),
        ("Subject", subject_value),
        ("Message-ID", message_id(c)),
    ]
    if subject.startswith("Re: ") or subject.startswith("RE: "):
        places = ["example.com", "example.net", "example.org"] + (["xinmail.example"] if spec["lang"] == "zh" else [])
        parent_domain = c.draw.pick("parent", places)
        parent = f"<{c.draw.hex('parent', 12)}.{c.draw.hex('parent2', 6)}@{parent_domain}>"
        headers += [("In-Reply-To", parent), ("References", parent)]
    if "list" in spec:
        list_name, local, list_domain = LISTS[spec["list"]]
        headers += [
            ("List-Id", f"{list_name} <{local}.{list_domain}>"),
            ("List-Post", f"<mailto:{local}@{list_domain}>"),
            ("List-Unsubscribe", f"<mailto:{local}-leave@{list_domain}>"),
            ("Precedence", "list"),
        ]
    if mua["header"]:
        headers.append(mua["header"])
    lang_tag = {"en": "en-us", "zh": "zh-cn"}[spec["lang"]]
    for k, v in mua["extra"]:
        headers.append((k, v.format(lang_tag=lang_tag, thread_index="Ad" + c.draw.hex("ti", 26))))
    headers += spec.get("extra", [])
    return headers


def assemble(spec: dict, key: str, when: dt.datetime):
    """Build the complete message: delivery headers first, then MIME headers."""
    h = hashlib.sha256(("boundary:" + key).encode("utf-8")).hexdigest()
    boundary = f"----=_Part_{h[:6]}_{h[6:16]}"
    msg = BUILDERS[spec["kind"]](spec, boundary)
    mime_headers = [(k, v) for k, v in msg.items() if k != "MIME-Version"]
    for k in {k for k, _ in msg.items()}:
        del msg[k]
    for k, v in message_headers(spec, key, when):
        msg[k] = v
    msg["MIME-Version"] = "1.0"
    for k, v in mime_headers:
        msg[k] = v
    return msg


def to_bytes(msg) -> bytes:
    buf = io.BytesIO()
    # maxheaderlen=0: the header values are folded where this script wrote
    # "\n\t" (and RFC 2047 words where the email package split them), as a
    # mail server writes them, not re-folded at 78 columns.
    BytesGenerator(buf, mangle_from_=False, maxheaderlen=0).flatten(msg)
    return buf.getvalue()


# ---------------------------------------------------------------------------
# Checks on the data itself (cheap; the real verification parses the output)
# ---------------------------------------------------------------------------

def visible_text(html: str) -> str:
    import html as html_mod
    return html_mod.unescape(re.sub(r"<[^>]*>", "", html))


def check_spec(spec: dict, where: str) -> None:
    body = spec["text"] if spec["kind"] != "html" else spec["html"]
    if spec["kind"] == "html":
        ok = spec["phrase"] in body and spec["phrase"] in visible_text(body)
    else:
        ok = spec["phrase"] in body
    if not ok:
        raise ValueError(f"{where}: phrase {spec['phrase']!r} not in body")
    for value in (spec["subject"], spec["phrase"]):
        # MANIFEST.tsv is read with the csv module: no tabs, no leading quote.
        if "\t" in value or value.startswith('"'):
            raise ValueError(f"{where}: tab or leading quote in {value!r}")
    n = body.count("\n")
    if not 3 <= n <= 30:
        raise ValueError(f"{where}: body has {n} lines")


# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------

def timeline(start: dt.datetime, step: dt.timedelta, specs: list[dict]):
    """Fixed, increasing dates; Chinese senders in +0800, English ones vary."""
    for i, spec in enumerate(specs):
        when = start + i * step
        hours = 8 if spec["lang"] == "zh" else EN_ZONES[i % len(EN_ZONES)]
        yield when.astimezone(dt.timezone(dt.timedelta(hours=hours)))


def file_stem(spec: dict, n: int) -> str:
    return "-".join([spec["lang"], SHORT_KIND[spec["kind"]], SHORT_CS[spec["charset"]],
                     SHORT_CTE[spec["cte"]], f"{n:03d}"])


def manifest_row(path: str, label: str, spec: dict) -> list[str]:
    return [path, label, spec["lang"], spec["kind"], spec["cte"], spec["charset"],
            spec["subject"], spec["phrase"]]


def write_mail(label: str, specs: list[dict], start: dt.datetime) -> list[list[str]]:
    out = HERE / "mail" / label
    out.mkdir(parents=True)
    rows = []
    for n, (spec, when) in enumerate(zip(specs, timeline(start, dt.timedelta(hours=29, minutes=37), specs)), 1):
        rel = f"mail/{label}/{file_stem(spec, n)}.eml"
        check_spec(spec, rel)
        (HERE / rel).write_bytes(to_bytes(assemble(spec, rel, when)))
        rows.append(manifest_row(rel, label, spec))
    return rows


def write_mbox(label: str, specs: list[dict], start: dt.datetime) -> list[list[str]]:
    path = HERE / "mbox" / f"{label}.mbox"
    path.parent.mkdir(parents=True, exist_ok=True)
    box = mailbox.mbox(str(path), create=True)  # mboxo: body "From " -> ">From "
    rows = []
    for n, (spec, when) in enumerate(zip(specs, timeline(start, dt.timedelta(hours=17, minutes=11), specs)), 1):
        rel = f"mbox/{label}.mbox#{n}"
        check_spec(spec, rel)
        data = to_bytes(assemble(spec, rel, when))
        from_line = f"From {spec['frm'][1]} {time.asctime(when.astimezone(UTC).timetuple())}"
        box.add(from_line.encode("ascii") + b"\n" + data)
        rows.append(manifest_row(rel, label, spec))
    box.close()
    return rows


def write_maildir(label: str, specs: list[dict], start: dt.datetime) -> list[list[str]]:
    root = HERE / "maildir" / label
    for sub in ("cur", "new", "tmp"):
        (root / sub).mkdir(parents=True)
    (root / "tmp" / ".keep").write_bytes(b"")
    rows = []
    for n, (spec, when) in enumerate(zip(specs, timeline(start, dt.timedelta(hours=13, minutes=5), specs)), 1):
        # Stable names in the usual "time.MnPpid.host[:2,flags]" shape.
        name = f"{int(when.timestamp())}.M{n}P{4100 + n}.sample"
        if spec["box"] == "cur":
            name += ":2," + spec["flags"]
        rel = f"maildir/{label}/{spec['box']}/{name}"
        check_spec(spec, rel)
        (HERE / rel).write_bytes(to_bytes(assemble(spec, rel, when)))
        rows.append(manifest_row(rel, label, spec))
    return rows


def write_manifest(rows: list[list[str]]) -> None:
    header = ["path", "label", "lang", "structure", "transfer_encoding", "charset",
              "subject", "phrase"]
    lines = ["\t".join(header)] + ["\t".join(r) for r in rows]
    (HERE / "MANIFEST.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")


def main() -> None:
    for sub in ("mail", "mbox", "maildir"):
        shutil.rmtree(HERE / sub, ignore_errors=True)
    utc = lambda *a: dt.datetime(*a, tzinfo=UTC)  # noqa: E731
    rows = []
    rows += write_mail("spam", MAIL_SPAM_EN + MAIL_SPAM_ZH + MAIL_SPAM_MORE, utc(2024, 12, 2, 1, 14, 5))
    rows += write_mail("ham", MAIL_HAM_EN + MAIL_HAM_ZH + MAIL_HAM_MORE, utc(2024, 12, 3, 6, 48, 31))
    rows += write_mbox("spam", MBOX_SPAM, utc(2025, 1, 4, 2, 0, 0))
    rows += write_mbox("ham", MBOX_HAM, utc(2025, 1, 4, 10, 22, 17))
    rows += write_maildir("spam", MAILDIR_SPAM, utc(2025, 2, 10, 3, 33, 12))
    rows += write_maildir("ham", MAILDIR_HAM, utc(2025, 2, 10, 8, 5, 44))
    write_manifest(rows)
    print(f"wrote {len(rows)} messages under {HERE}")


if __name__ == "__main__":
    main()
