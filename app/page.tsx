export default function Home() {
  return (
    <main>
      <h1>Review Console</h1>
      <p>
        The manual route for task queues. The record API is served under <code>/api/v1/reviews</code>.
      </p>
      <p>
        Health: <a href="/api/health">/api/health</a>
      </p>
    </main>
  );
}
