# mon: one process, one data directory.
#   docker build -t mon .
#   docker run -d -p 8080:8080 -v mon-data:/data mon
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY protocol/package.json protocol/
COPY server/package.json server/
COPY agent/package.json agent/
COPY panel/package.json panel/
# `npm install` honours package-lock.json; `npm ci` refuses a lock file made on a machine whose
# registry lacks other platforms' optional binaries. Scripts are skipped: the image has Node 24.
RUN npm install --no-audit --no-fund --ignore-scripts
COPY . .
# The image's own Node builds the panel and the one-file agent (the pinned `node` package was not set
# up without scripts).
RUN node panel/postinstall.mjs && node agent/postinstall.mjs && npm prune --omit=dev --no-audit --no-fund --ignore-scripts

FROM node:24-bookworm-slim
# ping for ping checks; tini reaps the ping processes and forwards signals.
RUN apt-get update \
 && apt-get install -y --no-install-recommends iputils-ping ca-certificates tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system mon && useradd --system --gid mon --home-dir /data mon \
 && mkdir -p /data && chown mon:mon /data && chmod 700 /data
WORKDIR /app
COPY --from=build --chown=root:root /app /app
ENV MON_LISTEN=0.0.0.0:8080 \
    MON_DATA_DIR=/data \
    NODE_ENV=production
USER mon
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:8080/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=50", "server/main.ts"]
