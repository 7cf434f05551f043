"""Service settings. Values only: read by every package, imported as ``settings``.

Environment overrides are resolved once, here, at import time.
"""

import os
from datetime import timedelta
from decimal import Decimal

# --- environment -------------------------------------------------------------
ENVIRONMENT = os.environ.get("APP_ENV", "development")
DEBUG = ENVIRONMENT == "development"
TESTING = os.environ.get("APP_TESTING") == "1"
SERVICE_NAME = "storefront"
SERVICE_VERSION = "2024.3.1"
REGION = os.environ.get("APP_REGION", "eu-central-1")
INSTANCE_ID = os.environ.get("HOSTNAME", "local")

# --- http --------------------------------------------------------------------
HTTP_HOST = os.environ.get("HTTP_HOST", "127.0.0.1")
HTTP_PORT = int(os.environ.get("HTTP_PORT", "8080"))
HTTP_WORKERS = int(os.environ.get("HTTP_WORKERS", "4"))
HTTP_REQUEST_TIMEOUT = timedelta(seconds=30)
HTTP_KEEPALIVE = timedelta(seconds=75)
HTTP_MAX_BODY_BYTES = 2 * 1024 * 1024
ALLOWED_HOSTS = ["localhost", "127.0.0.1", "shop.example.com", "api.shop.example.com"]
CORS_ORIGINS = ["https://shop.example.com", "https://admin.shop.example.com"]
TRUSTED_PROXIES = ["10.0.0.0/8", "172.16.0.0/12"]

# --- database ----------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://localhost:5432/storefront")
DATABASE_POOL_MIN = 2
DATABASE_POOL_MAX = 20
DATABASE_STATEMENT_TIMEOUT = timedelta(seconds=5)
DATABASE_READ_REPLICAS = [
    "postgresql://replica-1.internal:5432/storefront",
    "postgresql://replica-2.internal:5432/storefront",
]
MIGRATIONS_TABLE = "schema_migrations"

# --- auth ----------------------------------------------------------------------
AUTH_TOKEN_TTL = timedelta(minutes=15)
AUTH_REFRESH_GRACE = timedelta(seconds=30)
AUTH_SESSION_TTL = timedelta(days=14)
AUTH_MAX_SESSIONS_PER_USER = 10
AUTH_MAX_FAILED_LOGINS = 5
AUTH_LOCKOUT = timedelta(minutes=20)
AUTH_PASSWORD_MIN_LENGTH = 12
AUTH_ISSUER = "https://auth.shop.example.com"
AUTH_AUDIENCES = ["storefront", "admin", "partner-api"]
AUTH_DEFAULT_SCOPES = ("catalogue:read", "cart:write", "orders:read")
AUTH_SERVICE_SCOPES = {
    "svc:reports": ("orders:read", "billing:read"),
    "svc:checkout": ("cart:read", "orders:write", "billing:write"),
    "svc:search": ("catalogue:read",),
}

# --- billing -------------------------------------------------------------------
DEFAULT_CURRENCY = "EUR"
SUPPORTED_CURRENCIES = ("EUR", "USD", "GBP", "CHF", "JPY")
DEFAULT_COUNTRY = "DE"
INVOICE_NUMBER_PREFIX = "INV"
INVOICE_DUE_DAYS = 30
INVOICE_LATE_FEE_RATE = Decimal("0.02")
MAX_COUPON_RATE = Decimal("0.50")
MIN_ORDER_TOTAL_MINOR = 100
FREE_SHIPPING_THRESHOLD_MINOR = {"EUR": 5000, "USD": 6000, "GBP": 4500, "JPY": 700000}
SHIPPING_FLAT_RATE_MINOR = {"EUR": 495, "USD": 599, "GBP": 450, "JPY": 80000}
PAYMENT_PROVIDERS = ["card", "sepa_debit", "paypal", "invoice"]
PAYMENT_CAPTURE_DELAY = timedelta(hours=2)
REFUND_WINDOW = timedelta(days=30)

# --- cache ---------------------------------------------------------------------
CACHE_CAPACITY = 4096
CACHE_SHARDS = 8
CACHE_DEFAULT_TTL = timedelta(minutes=5)
CACHE_PRICE_TTL = timedelta(seconds=60)
CACHE_CATALOGUE_TTL = timedelta(minutes=30)
CACHE_NEGATIVE_TTL = timedelta(seconds=10)

# --- queues and jobs -----------------------------------------------------------
QUEUE_URL = os.environ.get("QUEUE_URL", "amqp://localhost:5672/")
QUEUE_PREFETCH = 16
QUEUE_MAX_RETRIES = 5
QUEUE_RETRY_BACKOFF = (timedelta(seconds=1), timedelta(seconds=5), timedelta(seconds=30))
JOB_SCHEDULE = {
    "reports.legacy_monthly": "0 3 1 * *",
    "reports.revenue_by_sku": "0 * * * *",
    "auth.purge_expired_tokens": "*/10 * * * *",
    "billing.send_dunning_emails": "30 8 * * 1-5",
}

# --- observability -------------------------------------------------------------
LOG_LEVEL = os.environ.get("LOG_LEVEL", "DEBUG" if DEBUG else "INFO")
LOG_FORMAT = "json"
LOG_REDACT_FIELDS = ("password", "token", "authorization", "card_number", "iban")
METRICS_PREFIX = "storefront"
METRICS_PUSH_INTERVAL = timedelta(seconds=15)
TRACING_SAMPLE_RATE = 0.05
SLOW_REQUEST_THRESHOLD = timedelta(milliseconds=750)

# --- feature flags -------------------------------------------------------------
FEATURE_FLAGS = {
    "checkout.one_click": False,
    "checkout.new_tax_engine": ENVIRONMENT != "production",
    "checkout.save_cart_across_devices": True,
    "pricing.bulk_tiers": True,
    "pricing.coupon_stacking": False,
    "pricing.show_unit_price": True,
    "billing.partial_refunds": True,
    "billing.multi_currency_invoices": False,
    "billing.legacy_monthly_report": True,
    "auth.refresh_with_grace": False,
    "auth.service_tokens": True,
    "auth.webauthn": ENVIRONMENT == "development",
    "catalogue.search_v2": False,
    "catalogue.image_cdn": True,
    "ui.dark_mode": True,
    "ui.price_labels_v2": False,
}
FEATURE_FLAG_OWNERS = {
    "checkout": "@team-checkout",
    "pricing": "@team-pricing",
    "billing": "@team-billing",
    "auth": "@team-identity",
    "catalogue": "@team-discovery",
    "ui": "@team-storefront",
}

# --- limits --------------------------------------------------------------------
RATE_LIMIT_ANONYMOUS = "60/minute"
RATE_LIMIT_AUTHENTICATED = "600/minute"
RATE_LIMIT_SERVICE = "6000/minute"
MAX_CART_LINES = 200
MAX_LINE_QUANTITY = 10_000
MAX_SEARCH_RESULTS = 100
MAX_UPLOAD_BYTES = 10 * 1024 * 1024

# --- search and catalogue -------------------------------------------------------
SEARCH_URL = os.environ.get("SEARCH_URL", "http://localhost:9200")
SEARCH_INDEX = "catalogue-v7"
SEARCH_TIMEOUT = timedelta(milliseconds=400)
SEARCH_SYNONYMS_FILE = "config/synonyms.txt"
CATALOGUE_PAGE_SIZE = 48
CATALOGUE_IMAGE_SIZES = (160, 320, 640, 1280)
CATALOGUE_DEFAULT_SORT = "relevance"

# --- i18n ------------------------------------------------------------------------
DEFAULT_LOCALE = "de_DE"
SUPPORTED_LOCALES = ("de_DE", "en_GB", "en_US", "fr_FR", "nl_NL", "ja_JP")
LOCALE_CURRENCY = {
    "de_DE": "EUR",
    "en_GB": "GBP",
    "en_US": "USD",
    "fr_FR": "EUR",
    "nl_NL": "EUR",
    "ja_JP": "JPY",
}
TIME_ZONE = "Europe/Berlin"

# --- storage ---------------------------------------------------------------------
MEDIA_BUCKET = os.environ.get("MEDIA_BUCKET", "storefront-media-dev")
EXPORT_BUCKET = os.environ.get("EXPORT_BUCKET", "storefront-exports-dev")
SIGNED_URL_TTL = timedelta(minutes=10)

# --- email ---------------------------------------------------------------------
EMAIL_FROM = "Storefront <no-reply@shop.example.com>"
EMAIL_REPLY_TO = "support@shop.example.com"
EMAIL_BACKEND = "console" if DEBUG else "smtp"
SMTP_HOST = os.environ.get("SMTP_HOST", "localhost")
SMTP_PORT = int(os.environ.get("SMTP_PORT", "587"))


def flag(name: str) -> bool:
    """Whether feature ``name`` is on; unknown flags are off."""
    return bool(FEATURE_FLAGS.get(name, False))
