import { redirect } from "next/navigation";
import { holdsPermission } from "@/lib/access/client";
import { currentUser } from "@/lib/auth";

// The home page has nothing of its own: signed-out people go to the login page, owners and
// support to the overview (their landing page), everyone else to the first section their role
// may use (the queue; the page itself explains a refusal).
export default async function Home() {
  const user = await currentUser();
  if (!user) redirect("/login");
  if (user.role === "owner" || user.role === "support") redirect("/overview");
  redirect(
    !holdsPermission(user.grants, "reviews.read") && holdsPermission(user.grants, "audit.read") ? "/audit" : "/reviews",
  );
}
