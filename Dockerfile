# The dependencies, every one: each build below starts from them.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts

# Build: compile, then keep only what runs.
FROM deps AS build
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts

# The participants (the card gateway, the fiscal authority): services of their own, compiled apart
# from the app, which never imports them. `--target participants`; compose runs each by its command.
FROM deps AS participants-build
COPY tsconfig.json tsconfig.participants.json ./
COPY participants ./participants
RUN npx tsc -p tsconfig.participants.json && npm prune --omit=dev --ignore-scripts

FROM node:24-bookworm-slim AS participants
ENV NODE_ENV=production
WORKDIR /app
COPY --from=participants-build /app/package.json ./
COPY --from=participants-build /app/node_modules ./node_modules
COPY --from=participants-build /app/dist-participants ./dist
USER node
EXPOSE 4010 4020
# Each migrates its own database (creating it if missing), then serves on its port.
CMD ["node", "dist/card-gateway/main.js"]

# Run: the compiled app and its production dependencies, as an unprivileged user. The last stage:
# what `docker build .` makes.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The console's page is served as it is, beside dist/.
COPY console ./console
USER node
EXPOSE 3000
HEALTHCHECK --interval=5s --timeout=3s --start-period=20s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node, not npm, is PID 1's child here, so SIGTERM reaches the app and it shuts down gracefully.
CMD ["node", "dist/main.js"]
