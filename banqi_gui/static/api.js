// Talking to the server: JSON in and out; a refusal becomes an Error with the server's words.

export async function call(method, path, body) {
  const options = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const words = data && data.error ? data.error : `${response.status} ${response.statusText}`;
    const error = new Error(words);
    error.status = response.status;
    throw error;
  }
  return data;
}

export async function upload(path, text) {
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "text/plain; charset=utf-8" },
    body: text,
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    throw new Error(data && data.error ? data.error : `${response.status} ${response.statusText}`);
  }
  return data;
}

export function say(text) {
  const message = document.getElementById("message");
  message.textContent = text || "";
  message.hidden = !text;
}
