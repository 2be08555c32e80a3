import { redirect } from "next/navigation";
import { can } from "@/lib/auth/roles";
import { currentUser } from "@/lib/auth/session";

// The home page has nothing of its own: signed-out people go to the login page, owners and
// support to the overview (their landing page), everyone else to the first section their role
// may use (the queue; the page itself explains a refusal).
export default async function Home() {
  const user = await currentUser();
  if (!user) redirect("/login");
  if (user.role === "owner" || user.role === "support") redirect("/overview");
  redirect(!can(user.role, "reviews.read") && can(user.role, "audit.read") ? "/audit" : "/reviews");
}
