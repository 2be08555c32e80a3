import "dotenv/config";
import { defineConfig } from "prisma/config";

// Prisma 7 reads the connection from here, not from schema.prisma. Only `prisma generate` is used
// (offline; see docs/decisions/0002-sql-first-migrations.md), which needs no live database.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/unused" },
});
