-- Saved views of the queue (docs/decisions/0047-saved-views.md): a person's filters and sort
-- under a name, theirs alone or shared with the team. `query` is the queue's URL search string
-- without the `?`, checked and put in one canonical form by lib/views/saved-query.ts before it is
-- written (the same rules as GET /api/v1/reviews); the bounds here are the database's own guard.
CREATE TABLE "saved_views" (
  "id" UUID NOT NULL DEFAULT gen_random_uuid(),
  -- A view is its owner's: it goes with their account.
  "owner_id" UUID NOT NULL,
  "name" TEXT NOT NULL CONSTRAINT "saved_views_name_length" CHECK (char_length("name") BETWEEN 1 AND 80),
  "query" TEXT NOT NULL CONSTRAINT "saved_views_query_length" CHECK (char_length("query") <= 4000),
  -- Shared: every person sees it in their navigation; only the owner changes or removes it.
  "shared" BOOLEAN NOT NULL DEFAULT false,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "saved_views_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "saved_views_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
-- One name per owner (the navigation tells views apart by name); also the owner's list, by name.
-- A person has at most 50 views (lib/views/store.ts), so the shared ones are few and read whole.
CREATE UNIQUE INDEX "saved_views_owner_id_name_key" ON "saved_views" ("owner_id", "name");
