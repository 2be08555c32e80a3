import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/generated/prisma/client";

// One client per process, created on first use: Next imports route modules during `next build`,
// when there is no database to connect to.
const globalForDb = globalThis as unknown as { reviewConsoleDb?: PrismaClient };

export function db(): PrismaClient {
  if (!globalForDb.reviewConsoleDb) {
    const connectionString = process.env.DATABASE_URL;
    if (!connectionString) throw new Error("DATABASE_URL is not set");
    const adapter = new PrismaPg({ connectionString, max: Number(process.env.DB_POOL_SIZE ?? 10) });
    globalForDb.reviewConsoleDb = new PrismaClient({ adapter });
  }
  return globalForDb.reviewConsoleDb;
}

export async function closeDb(): Promise<void> {
  const client = globalForDb.reviewConsoleDb;
  globalForDb.reviewConsoleDb = undefined;
  await client?.$disconnect();
}
