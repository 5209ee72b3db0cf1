export default function ({ data }) {
  if (data.forget_kept_text) {
    for (const key of Object.keys(window.localStorage)) {
      if (key.startsWith(data.forget_kept_text)) window.localStorage.removeItem(key);
    }
  }
  if (data.method === "POST") {
    const form = document.createElement("form");
    form.method = "POST";
    form.action = data.url;
    form.style.display = "none";
    document.body.append(form);
    form.submit();
  } else {
    window.location.replace(data.url);
  }
}
